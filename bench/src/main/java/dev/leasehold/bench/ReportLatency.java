package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.signed;
import static dev.leasehold.bench.ReportFormat.stats;
import static dev.leasehold.bench.ReportFormat.statsRow;

import dev.leasehold.bench.contender.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * ReportLatency writes the timing sections of {@link Report}: the raw etcd floor, graceful handover
 * (with its hop-by-hop trace), crash failover and the stale-leader window under a partition.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportLatency extends MarkdownReport {
  private final Results r;
  private final Path handoverPng;
  private final Path crashPng;
  private final Path partitionPng;

  ReportLatency(Results results, Path handoverPng, Path crashPng, Path partitionPng) {
    this.r = results;
    this.handoverPng = handoverPng;
    this.crashPng = crashPng;
    this.partitionPng = partitionPng;
  }

  /** markdown writes the floor, handover, hop-by-hop, crash and partition sections and returns them. */
  String markdown() {
    floor();
    handover(handoverPng);
    handoverHops();
    crash(crashPng);
    partition(partitionPng);
    return md.toString();
  }

  private void floor() {
    h2("The floor: raw etcd round trips on this machine");
    p("One jetcd client per role, no election library in between. The three handover paths start "
        + "when a leader revokes its lease and end when the first of two followers (each with its own "
        + "client and a watch on the key) knows it leads; they show what each protocol shape costs here.");
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, List<Double>> e : r.floor.entrySet()) {
      rows.add(statsRow(e.getKey(), stats(e.getValue())));
    }
    table(List.of("figure", "n", "p50", "p90", "p99", "max"), rows);
  }

  private void handover(Path png) {
    h2("Graceful handover");
    p(r.options.candidates() + " candidate JVMs per contender, lease TTL " + r.options.handoverTtl() + " s. t0: just before the "
        + "leader's JVM calls `resign()`; end: the next leader's elected callback (System.nanoTime in both "
        + "JVMs, one host). " + r.options.handoverWarmup() + " unrecorded warm-up handovers first. Raft "
        + "proposals per handover: committed proposals during the phase divided by the number of handovers.");
    List<List<String>> rows = new ArrayList<>();
    for (Kind k : r.handover.keySet()) {
      List<String> row = new ArrayList<>(statsRow(k.label(), stats(r.handover.get(k))));
      Double pp = r.proposalsPerHandover.get(k);
      row.add(pp == null ? "–" : String.format(Locale.ROOT, "%.1f", pp));
      rows.add(row);
    }
    table(List.of("contender", "n", "p50", "p90", "p99", "max", "proposals/handover"), rows);
    img("Graceful handover CDF", png);
  }

  private void handoverHops() {
    if (r.handoverHops.isEmpty()) {
      return;
    }
    h2("Graceful handover, hop by hop");
    p("The same handovers, traced (`-Dleasehold.trace=true` in the candidate JVMs records core's Flight Recorder "
        + "events, which carry System.nanoTime() at each hop, taken on the thread that passes it). Times are from t0 (the resign "
        + "line, as above); the resigner's hops come from its JVM, the rest from the successor's. "
        + "A hop's step is its time minus that of the previous hop seen in the same trial. "
        + "`*_ON_LOOP`: the elector's event loop took the input the store thread handed it. "
        + "The last column is the bare standby path of the floor (raw jetcd: revoke → watch → txn) at the "
        + "matching hop, from its own t0 (the revoke sent).");
    for (Map.Entry<dev.leasehold.bench.contender.Kind, HandoverHops> e : r.handoverHops.entrySet()) {
      p("**" + e.getKey().label() + "** (" + e.getValue().size() + " traced handovers)");
      table(List.of("hop", "n", "from t0 p50", "p99", "step p50", "step p99", "bare path p50 / p99"),
          e.getValue().rows(r.floorHops));
    }
  }

  private void crash(Path png) {
    h2("Crash failover");
    p(r.options.candidates() + " candidate JVMs; the leader's JVM is SIGKILLed at a random point of its renewal cycle (t0 "
        + "just before the kill) until the next leader's elected callback. A fresh candidate JVM is "
        + "started right after each kill (it joins while the lease runs out), so every trial starts with "
        + "the same number of candidates.");
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Integer, Map<Kind, List<Double>>> e : r.crash.entrySet()) {
      for (Map.Entry<Kind, List<Double>> k : e.getValue().entrySet()) {
        List<String> row = new ArrayList<>(statsRow(k.getKey().label(), stats(k.getValue())));
        row.add(1, e.getKey() + " s");
        row.add(ms(e.getKey() * 1000 + 600));
        rows.add(row);
      }
    }
    table(List.of("contender", "TTL", "n", "p50", "p90", "p99", "max", "TTL + 0.6 s"), rows);
    img("Crash failover CDF", png);
  }

  private void partition(Path png) {
    h2("Stale-leader window under a client–etcd partition of the leader");
    p("Each candidate JVM reaches etcd only through its own TCP proxies (one per member). At t0 the "
        + "leader's proxies start dropping every byte silently (connections stay open, as when a network "
        + "drops packets). Window = the old leader's step-down callback minus the new leader's elected "
        + "callback: negative means the old one had stopped before the new one started (safe); positive "
        + "means two leaders at once for that long. Lease TTL " + r.options.partitionTtl() + " s. A leader that "
        + "has not stepped down " + ms(capMs()) + " after the new election is counted as \"never\".");
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Kind, List<Results.PartitionTrial>> e : r.partition.entrySet()) {
      List<Results.PartitionTrial> ts = e.getValue();
      List<Double> windows = ts.stream().filter(Results.PartitionTrial::steppedDown)
          .map(Results.PartitionTrial::windowMs).toList();
      long stepped = ts.stream().filter(Results.PartitionTrial::steppedDown).count();
      long positive = windows.stream().filter(w -> w >= 0).count();
      Stats w = stats(windows);
      Stats el = stats(ts.stream().map(Results.PartitionTrial::newLeaderMs).toList());
      Stats dn = stats(ts.stream().filter(Results.PartitionTrial::steppedDown)
          .map(Results.PartitionTrial::stepDownMs).toList());
      rows.add(List.of(e.getKey().label(), Integer.toString(ts.size()),
          stepped + "/" + ts.size() + (stepped == 0 && !ts.isEmpty() ? " (never steps down)" : ""),
          positive + "/" + windows.size(),
          w == null ? "–" : signed(w.min()), w == null ? "–" : signed(w.p50()),
          w == null ? "–" : signed(w.p99()), w == null ? "–" : signed(w.max()),
          dn == null ? "–" : ms(dn.p50()), el == null ? "–" : ms(el.p50())));
    }
    table(List.of("contender", "n", "stepped down", "overlaps (window ≥ 0)", "window min", "p50", "p99", "max",
        "t0 → step-down p50", "t0 → new leader p50"), rows);
    img("Stale-leader window CDF", png);
  }

  private double capMs() {
    return (3.0 * r.options.partitionTtl() + 5) * 1000;
  }
}
