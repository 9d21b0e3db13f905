package dev.leasehold.bench;

import dev.leasehold.LeaderElector;
import dev.leasehold.bench.contender.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Report writes the Markdown report, the CDF plots and a CSV of every sample for one run.
 * Every number in it comes from {@link Results}; the prose around the numbers only names the
 * mechanisms. Not thread-safe.
 */
final class Report extends MarkdownReport {
  private final Results r;
  private final Path dir;
  private final String stem;
  private final List<String> missed = new ArrayList<>();

  Report(Results results, Path dir, String stem) {
    this.r = results;
    this.dir = dir;
    this.stem = stem;
  }

  /** write produces {@code <stem>.md}, its plots and {@code <stem>-samples.csv}; returns the .md path. */
  Path write() throws IOException {
    Files.createDirectories(dir);
    Path handoverPng = plotHandover();
    Path crashPng = plotCrash();
    Path partitionPng = plotPartition();
    writeCsv();

    h1("Leasehold benchmark, " + stem);
    p("Leasehold, jetcd's `Election` client and the seed's polling design, measured side by side on "
        + "one 3-member etcd cluster in one run of `bench/run.sh" + (r.command.isBlank() ? "" : " " + r.command)
        + "` (wall time " + String.format(Locale.ROOT, "%.1f", r.wallSeconds / 60) + " min, started "
        + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(r.startedAtMillis).atOffset(ZoneOffset.UTC))
        + "). Every figure below was measured in this run; nothing is copied from elsewhere.");
    machine();
    targets();
    floor();
    handover(handoverPng);
    handoverHops();
    crash(crashPng);
    partition(partitionPng);
    idle();
    standby();
    scale();
    analysis();
    findings();
    method();
    if (!r.problems.isEmpty()) {
      h2("Problems during the run");
      for (String s : r.problems) {
        md.append("- ").append(s).append('\n');
      }
      md.append('\n');
    }
    Path out = dir.resolve(stem + ".md");
    Files.writeString(out, md.toString(), StandardCharsets.UTF_8);
    return out;
  }

  // ---- sections ----

  private void machine() {
    MachineInfo m = r.machine;
    h2("Machine");
    table(List.of("", ""), List.of(
        List.of("CPU", m.cpu() + ", " + m.cores() + " cores (nproc)"),
        List.of("memory", m.memory()),
        List.of("OS", m.os()),
        List.of("JDK", m.jdk()),
        List.of("etcd", m.etcd() + ": 3 members on 127.0.0.1, heartbeat 100 ms, election timeout 1000 ms, "
            + "clients use the first endpoint (member 0)"),
        List.of("jetcd", m.jetcd()),
        List.of("Leasehold", m.leasehold() + " (defaults: poll 1 s, margin TTL/10, drift 0.01)"),
        List.of("load average (1/5/15 min)", "at start " + r.loadBefore + ", at end " + r.loadAfter),
        List.of("etcd stalls", r.etcdSlowApplies < 0 ? "unknown" : r.etcdSlowApplies + " \"apply request took too "
            + "long\" (> 100 ms) and " + r.etcdSlowFsyncs + " \"slow fdatasync\" (> 1 s) warnings in the members' "
            + "logs during the run")));
  }

  private void targets() {
    h2("Targets");
    p("Targets of issue 5, judged for Leasehold. A miss is explained, with the proposed change, under "
        + "[Why targets were missed](#why-targets-were-missed).");
    List<List<String>> rows = new ArrayList<>();
    Stats lh = stats(r.handover.get(Kind.LEASEHOLD));
    Stats je = stats(r.handover.get(Kind.JETCD));
    if (lh != null) {
      boolean ok = lh.p99() <= 15;
      rows.add(List.of("graceful handover p99 ≤ 15 ms", "p99 " + ms(lh.p99()) + " (n=" + lh.n() + ")",
          verdict(ok, ok ? "" : "by " + ms(lh.p99() - 15))));
      if (!ok) {
        missed.add("handover15");
      }
    }
    if (lh != null && je != null) {
      boolean ok = lh.p50() <= je.p50() && lh.p99() <= je.p99();
      rows.add(List.of("handover no slower than jetcd Election",
          "p50 " + ms(lh.p50()) + " vs " + ms(je.p50()) + "; p99 " + ms(lh.p99()) + " vs " + ms(je.p99()),
          verdict(ok, ok ? "" : "p50 by " + ms(Math.max(0, lh.p50() - je.p50())) + ", p99 by "
              + ms(Math.max(0, lh.p99() - je.p99())))));
      if (!ok) {
        missed.add("handoverJetcd");
      }
    }
    for (Map.Entry<Integer, Map<Kind, List<Double>>> e : r.crash.entrySet()) {
      Stats s = stats(e.getValue().get(Kind.LEASEHOLD));
      if (s == null) {
        continue;
      }
      double bound = e.getKey() * 1000 + 600;
      boolean ok = s.p99() <= bound;
      rows.add(List.of("crash failover p99 ≤ TTL + 0.6 s (TTL " + e.getKey() + " s)",
          "p99 " + ms(s.p99()) + " ≤ " + ms(bound) + "? (n=" + s.n() + ")",
          verdict(ok, ok ? "" : "by " + ms(s.p99() - bound))));
      if (!ok) {
        missed.add("crash" + e.getKey());
      }
    }
    Map<Integer, EtcdMetrics.Rates> idle = r.idle.get(Kind.LEASEHOLD);
    if (idle != null && !idle.isEmpty()) {
      boolean ok = idle.values().stream().allMatch(x -> x.proposalCount() == 0);
      String counts = idle.entrySet().stream()
          .map(x -> x.getKey() + ": " + x.getValue().proposalCount() + " in " + f0(x.getValue().seconds()) + " s")
          .collect(Collectors.joining(", "));
      rows.add(List.of("0 raft proposals/s idle, every candidate count", counts, verdict(ok, "")));
      if (!ok) {
        missed.add("idle");
      }
    }
    List<Results.PartitionTrial> pt = r.partition.get(Kind.LEASEHOLD);
    if (pt != null && !pt.isEmpty()) {
      boolean all = pt.stream().allMatch(Results.PartitionTrial::steppedDown);
      double max = pt.stream().mapToDouble(Results.PartitionTrial::windowMs).max().orElse(Double.NaN);
      boolean ok = all && max < 0;
      rows.add(List.of("stale-leader window always negative",
          "max " + signed(max) + " over " + pt.size() + " partitions" + (all ? "" : ", some never stepped down"),
          verdict(ok, ok ? "" : "by " + ms(Math.max(0, max)))));
      if (!ok) {
        missed.add("stale");
      }
    }
    table(List.of("target", "measured (Leasehold)", "met?"), rows);
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
    p("The same handovers, traced (`-Dleasehold.trace=true` in the candidate JVMs; `HandoverTrace` marks "
        + "System.nanoTime() at each hop, on the thread that passes it). Times are from t0 (the resign "
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

  private void idle() {
    h2("etcd cost while idle");
    p("N candidates of one contender in one JVM, each with its own jetcd client, lease TTL "
        + r.options.idleTtl() + " s; after a leader is elected and start-up traffic settled, counters are read "
        + "from every member's `/metrics` before and after a " + r.options.idleWindowSeconds() + " s window. "
        + "Proposals/s: `etcd_server_proposals_committed_total` (the highest member; every member commits the "
        + "same log). RPCs/s: `grpc_server_started_total` summed over members (a stream counts once, when "
        + "opened). Messages/s: `grpc_server_msg_received_total` summed (every request message, also on "
        + "streams). Before each group starts, the bench waits until etcd holds no lease; \"leases left "
        + "after close\" is etcd's lease count right after every candidate's `close()` returned.");
    if (r.idleBaseline != null) {
      p(String.format(Locale.ROOT, "Baseline with no candidates: %.2f proposals/s, %.2f RPCs/s, %.2f messages/s.",
          r.idleBaseline.proposalsPerSec(), r.idleBaseline.rpcsPerSec(), r.idleBaseline.messagesPerSec()));
    }
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Kind, Map<Integer, EtcdMetrics.Rates>> e : r.idle.entrySet()) {
      for (Map.Entry<Integer, EtcdMetrics.Rates> n : e.getValue().entrySet()) {
        EtcdMetrics.Rates x = n.getValue();
        Integer left = r.leasesLeftAfterIdle.getOrDefault(e.getKey(), Map.of()).get(n.getKey());
        rows.add(List.of(e.getKey().label(), Integer.toString(n.getKey()), f2(x.proposalsPerSec()),
            f1(x.rpcsPerSec()), f1(x.messagesPerSec()), topMethods(x), left == null ? "–" : left.toString()));
      }
    }
    table(List.of("contender", "candidates", "proposals/s", "RPCs/s", "messages/s", "busiest methods (msgs/s)",
        "leases left after close"), rows);
  }

  private void standby() {
    if (!r.handover.containsKey(Kind.LEASEHOLD_NO_STANDBY) && !r.idle.containsKey(Kind.LEASEHOLD_NO_STANDBY)) {
      return;
    }
    h2("The standby lease, measured");
    p("Leasehold with `standbyLease(true)` (the default: followers keep a confirmed lease, so a takeover "
        + "is one proposal) against `standbyLease(false)` (grant, then CAS), from the handover and idle "
        + "runs above.");
    List<List<String>> rows = new ArrayList<>();
    for (Kind k : List.of(Kind.LEASEHOLD, Kind.LEASEHOLD_NO_STANDBY)) {
      Stats h = stats(r.handover.get(k));
      Double pp = r.proposalsPerHandover.get(k);
      Map<Integer, EtcdMetrics.Rates> idle = r.idle.getOrDefault(k, Map.of());
      String rpcs = idle.entrySet().stream()
          .map(e -> e.getKey() + ": " + f1(e.getValue().rpcsPerSec()) + " / " + f1(e.getValue().messagesPerSec()))
          .collect(Collectors.joining(", "));
      rows.add(List.of(k.label(), h == null ? "–" : ms(h.p50()) + " / " + ms(h.p99()),
          pp == null ? "–" : f1(pp), rpcs.isEmpty() ? "–" : rpcs));
    }
    table(List.of("variant", "handover p50 / p99", "proposals/handover",
        "idle RPCs/s / messages/s by candidate count"), rows);
  }

  private void scale() {
    h2("Scale: many Leasehold electors on one key in one JVM");
    p("All electors start at once on a fresh key (TTL " + r.options.scaleTtl() + " s). First leader: from "
        + "the first `start()` to the first elected callback; all know: until every elector reports that "
        + "leader. Memory and threads: heap after full GC, live threads and resident set, after minus "
        + "before, divided by the count. Idle cost over " + r.options.idleWindowSeconds() + " s once settled. "
        + "Handover: `resign()` on the leader until the next elected callback, with every elector "
        + "following; " + r.options.scaleHandovers() + " handovers per row (each moves all electors, so fewer "
        + "than the 50 of the small scenarios). Proposals per handover: committed proposals during the "
        + "handovers divided by their number. Leader closed: the leader closes without a handover (its "
        + "lease revoked, as etcd revokes a crashed leader's), the time to the next ELECTED, and the "
        + "proposals committed until every elector knows the new leader.");
    List<List<String>> rows = new ArrayList<>();
    for (Results.ScaleRun s : r.scale) {
      Stats h = stats(s.handovers());
      rows.add(List.of(s.mode(), Integer.toString(s.count()),
          ms(s.value("first_leader_ms")), ms(s.value("all_know_leader_ms")),
          h == null ? "–" : ms(h.p50()) + " / " + ms(h.p99()) + " / " + ms(h.max()) + " (n=" + h.n() + ")",
          Double.isNaN(s.proposalsPerHandover()) ? "–" : f0(s.proposalsPerHandover()),
          ms(s.value("failover_ms")) + " / " + f0(s.value("proposals_per_failover")),
          kib(s.value("heap_bytes_per_elector")), f2(s.value("threads_per_elector")),
          kib(s.value("rss_bytes_per_elector")),
          s.idle() == null ? "–" : f2(s.idle().proposalsPerSec()) + " / " + f0(s.idle().rpcsPerSec()),
          f0(s.value("leases_left_after_close")), s.failure() == null ? "" : s.failure()));
    }
    table(List.of("client", "electors", "first leader", "all know", "handover p50 / p99 / max",
        "proposals/handover", "leader closed: failover / proposals", "heap/elector", "threads/elector", "RSS/elector", "idle proposals/s / RPCs/s",
        "leases left after close", "failure"), rows);
    // Which idle proposals clients asked for: the rest are etcd's own (expired leases).
    List<List<String>> writes = new ArrayList<>();
    for (Results.ScaleRun s : r.scale) {
      for (int w = 0; w < 2; w++) {
        EtcdMetrics.Rates idle = w == 0 ? s.idle() : s.idleLater();
        if (idle == null) {
          continue;
        }
        Map<String, Double> m = idle.messagesPerSecByMethod();
        double asked = m.getOrDefault("LeaseGrant", 0.0) + m.getOrDefault("LeaseRevoke", 0.0)
            + m.getOrDefault("Txn", 0.0) + m.getOrDefault("Put", 0.0) + m.getOrDefault("DeleteRange", 0.0);
        writes.add(List.of(s.mode(), Integer.toString(s.count()), w == 0 ? "first" : "second",
            f2(idle.proposalsPerSec()), f2(m.getOrDefault("LeaseGrant", 0.0)),
            f2(m.getOrDefault("LeaseRevoke", 0.0)), f2(m.getOrDefault("Txn", 0.0)),
            f2(Math.max(0, idle.proposalsPerSec() - asked)), f1(m.getOrDefault("LeaseKeepAlive", 0.0)),
            f1(m.getOrDefault("Range", 0.0))));
      }
    }
    if (!writes.isEmpty()) {
      p("Idle proposals by origin (messages/s summed over members), in the idle window above and in the "
          + r.options.idleWindowSeconds() + " s right after it: grants, revokes and "
          + "transactions the clients sent; the rest of the committed proposals are etcd's own, which while "
          + "idle means leases expiring that nobody revoked.");
      table(List.of("client", "electors", "window", "proposals/s", "LeaseGrant/s", "LeaseRevoke/s", "Txn/s",
          "etcd's own (expiries)/s", "LeaseKeepAlive msgs/s", "Range/s"), writes);
    }
  }

  private void analysis() {
    h2("Why targets were missed");
    if (missed.isEmpty()) {
      p("Every target was met in this run.");
      return;
    }
    Map<String, Stats> f = new LinkedHashMap<>();
    r.floor.forEach((k, v) -> f.put(k, stats(v)));
    Stats lh = stats(r.handover.get(Kind.LEASEHOLD));
    Stats je = stats(r.handover.get(Kind.JETCD));
    if (missed.contains("handover15") || missed.contains("handoverJetcd")) {
      Stats pathGt = f.get(Floor.PATH_GRANT_TXN);
      Stats pathSb = f.get(Floor.PATH_STANDBY);
      Stats pathRd = f.get(Floor.PATH_READ);
      Stats off = stats(r.handover.get(Kind.LEASEHOLD_NO_STANDBY));
      StringBuilder s = new StringBuilder();
      s.append("**Graceful handover.** With the standby lease (the default), Leasehold's path after "
          + "`resign()` is two raft proposals in a row: the leader revokes its lease, the followers see "
          + "the delete on their watch, and a follower holding a valid standby lease commits the "
          + "compare-and-swap. jetcd's `Election` has one: the delete of the leader key, after which the "
          + "server only reads (linearizably) before the next waiter's `campaign` returns. ");
      if (f.get(Floor.REVOKE) != null && f.get(Floor.TXN) != null && f.get(Floor.WATCH) != null) {
        s.append("On this machine a revoke takes ").append(ms(f.get(Floor.REVOKE).p50()))
            .append(" p50, a txn ").append(ms(f.get(Floor.TXN).p50())).append(", a linearizable get ")
            .append(ms(f.get(Floor.GET) == null ? Double.NaN : f.get(Floor.GET).p50()))
            .append(", and a write reaches a watcher in ").append(ms(f.get(Floor.WATCH).p50()))
            .append(" (p99 ").append(ms(f.get(Floor.WATCH).p99())).append("). ");
      }
      if (pathSb != null && pathRd != null) {
        s.append("The bare paths with raw jetcd: revoke → watch → txn ").append(ms(pathSb.p50()))
            .append(" p50 / ").append(ms(pathSb.p99())).append(" p99; revoke → watch → read ")
            .append(ms(pathRd.p50())).append(" / ").append(ms(pathRd.p99())).append(". ");
      }
      if (lh != null && je != null) {
        s.append("Through the libraries, in separate JVMs: Leasehold ").append(ms(lh.p50())).append(" / ")
            .append(ms(lh.p99())).append(", jetcd ").append(ms(je.p50())).append(" / ").append(ms(je.p99()))
            .append(". ");
      }
      Double pl = r.proposalsPerHandover.get(Kind.LEASEHOLD);
      Double pj = r.proposalsPerHandover.get(Kind.JETCD);
      if (pl != null && pj != null) {
        s.append("Leasehold also commits more around each handover: ").append(f1(pl))
            .append(" proposals per handover against jetcd's ").append(f1(pj))
            .append(": every follower campaigns (the loser's txn is a proposal too), and the resigning "
                + "leader grants itself a new standby lease. ");
      }
      if (off != null && pathGt != null) {
        s.append("Without the standby lease (grant, then txn) it takes ").append(ms(off.p50())).append(" / ")
            .append(ms(off.p99())).append(" (bare path ").append(ms(pathGt.p50())).append(" / ")
            .append(ms(pathGt.p99())).append("). ");
      }
      if (lh != null && f.get(Floor.TXN) != null) {
        s.append("The tails also carry etcd's own stalls on this VM: the raw txn round trip alone has p99 ")
            .append(ms(f.get(Floor.TXN).p99())).append(", and the members logged ").append(r.etcdSlowApplies)
            .append(" applies slower than 100 ms during the run.");
      }
      s.append("\n\n**Proposal** (for core; not changed here): hand the key over in one transaction. "
          + "Followers already hold confirmed standby leases; let each advertise it under the election "
          + "key's prefix (one put bound to that lease when it joins: nothing while idle), and let "
          + "`resign()` commit `If(CreateRevision(K)==token) Then Delete(K), Put(K, successor, "
          + "successorStandbyLease)`. The successor learns from its watch that K is bound to its own "
          + "lease and becomes MASTER with no write of its own: one proposal plus one watch "
          + "notification");
      if (f.get(Floor.WATCH) != null) {
        s.append(" (the put → watch figure, ").append(ms(f.get(Floor.WATCH).p50())).append(" p50 here)");
      }
      s.append(", the same shape as jetcd's and without its server-side read. Its deadline is the "
          + "standby lease's, so the deadline rule does not change. It also ends the race of every "
          + "follower for the key (see the scale figures below).");
      p(s.toString());
    }
    for (Map.Entry<Integer, Map<Kind, List<Double>>> e : r.crash.entrySet()) {
      if (!missed.contains("crash" + e.getKey())) {
        continue;
      }
      Stats s = stats(e.getValue().get(Kind.LEASEHOLD));
      p("**Crash failover, TTL " + e.getKey() + " s.** p99 " + ms(s.p99()) + ", max " + ms(s.max()) + ". After "
          + "a kill the lease lives until its last renewal + TTL; etcd's lessor looks for expired leases "
          + "only every 500 ms and revokes them through raft; then the followers' watch fires and one "
          + "commits its CAS. That bounds failover by TTL + 0.5 s + a few round trips; a trial beyond it "
          + "means a follower learnt of the delete late (its poll, every " + "1 s, instead of its watch) or "
          + "etcd stalled. **Proposal:** find those trials in the CSV and the candidates' logs; if the "
          + "watch was late, a shorter poll interval bounds it.");
    }
    if (missed.contains("idle")) {
      p("**Idle proposals.** Leasehold should send no raft proposal while idle (keep-alives and "
          + "linearizable reads are not proposals). The non-zero counts above are listed per candidate count "
          + "with the busiest methods; any write in them is a bug to chase in core.");
    }
    if (missed.contains("stale")) {
      List<Results.PartitionTrial> pt = r.partition.get(Kind.LEASEHOLD);
      double max = pt.stream().mapToDouble(Results.PartitionTrial::windowMs).max().orElse(Double.NaN);
      p("**Stale-leader window.** Largest window " + signed(max) + ". Leasehold's deadline is the send time "
          + "of its last confirmed renewal + TTL × 0.99 − TTL/10; etcd cannot expire the lease before send "
          + "time + TTL. A non-negative window means the step-down callback came later than that bound, "
          + "i.e. event dispatch ate the margin; the margin (TTL/10) must cover it.");
    }
  }

  private void findings() {
    List<String> notes = new ArrayList<>();
    String herd = r.scale.stream().filter(s -> !Double.isNaN(s.proposalsPerHandover()))
        .map(s -> f0(s.proposalsPerHandover()) + " (" + s.mode() + ")").collect(Collectors.joining(", "));
    if (!herd.isEmpty()) {
      notes.add("At " + r.options.scaleCount() + " electors one handover commits " + herd + " raft proposals: "
          + "every follower sees the delete and races for the key, so the cost grows with the number of "
          + "followers (jetcd's queue wakes only the next waiter). The one-transaction hand-over proposed "
          + "above removes the race for `resign()`; for a crash, followers could delay their CAS by a "
          + "rank-dependent few milliseconds.");
    }
    for (Results.ScaleRun s : r.scale) {
      if (s.idle() != null && s.idle().proposalCount() > 0) {
        String writes = writeMethods(s.idle());
        notes.add("At " + s.count() + " electors (" + s.mode() + "), etcd committed "
            + f1(s.idle().proposalsPerSec()) + " proposals/s while no leader changed. "
            + (writes.isEmpty()
                ? "No client sent a write in that window, so these were etcd's own revocations of expired "
                    + "leases."
                : "Client writes in that window (messages/s): " + writes + "."));
      }
    }
    Map<Integer, EtcdMetrics.Rates> on = r.idle.get(Kind.LEASEHOLD);
    Map<Integer, EtcdMetrics.Rates> off = r.idle.get(Kind.LEASEHOLD_NO_STANDBY);
    if (on != null && off != null && !on.isEmpty()) {
      int n = on.keySet().stream().max(Integer::compare).get();
      if (off.containsKey(n)) {
        notes.add("The standby lease's idle cost at " + n + " candidates: " + f1(on.get(n).rpcsPerSec())
            + " RPCs/s and " + f1(on.get(n).messagesPerSec()) + " messages/s, against "
            + f1(off.get(n).rpcsPerSec()) + " and " + f1(off.get(n).messagesPerSec())
            + " without it (no raft proposals either way).");
      }
    }
    if (notes.isEmpty()) {
      return;
    }
    h2("Other findings");
    for (String n : notes) {
      md.append("- ").append(n).append('\n');
    }
    md.append('\n');
  }

  private void method() {
    h2("How it was measured");
    md.append("- Contenders: **Leasehold** is `LeaderElector` with its defaults except the TTL. "
        + "**jetcd Election** grants a lease, keeps it alive with jetcd's `keepAlive` helper, campaigns, "
        + "observes, and resigns with the leader key; it counts leadership as lost when the helper reports "
        + "an error or completes (jetcd completes it when reply time + TTL has passed, checked every second) "
        + "and then campaigns again with a fresh lease. **polling (seed)**: every TTL/2 a follower grants a "
        + "lease, tries `If CreateRevision(K)==0 Then Put(K, id, lease)` and revokes the lease when it loses; "
        + "the master sends one `keepAliveOnce` per round and stays master until one fails; no local "
        + "deadline; a watch only clears the master flag. Choices the seed's description leaves open were made "
        + "in its favour: every call has a timeout of one round (TTL/2), and `resign` revokes the lease and sits "
        + "out one round (the seed has no resign; this equals close and restart without a JVM start).\n");
    md.append("- Times are `System.nanoTime()` (CLOCK_MONOTONIC, shared by every process on the host) taken "
        + "in the callback a user of each library gets; the bench reads them from the candidates' stdout.\n");
    md.append("- Percentiles are nearest-rank over the recorded trials: every figure is a measured sample, and "
        + "with fewer than 100 samples p99 is the maximum.\n");
    md.append("- Contenders run one at a time on the same cluster; each scenario uses a fresh key. The "
        + "partition uses the it-tests chaos harness's `ClientProxies` (one `TcpProxy` per member for each "
        + "candidate; BLACKHOLE drops every byte, heal resets the connections that lost bytes).\n");
    md.append("- Raw samples: [`" + stem + "-samples.csv`](" + stem + "-samples.csv).\n\n");
  }

  // ---- plots and CSV ----

  private Path plotHandover() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.handover.forEach((k, v) -> s.put(k.label(), v));
    return Plots.cdf(dir.resolve(stem + "-handover-cdf"), "Graceful handover (resign → next elected)",
        "milliseconds (log scale)", s, true);
  }

  private Path plotCrash() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> s.put(k.label() + ", TTL " + ttl + " s", v)));
    return Plots.cdf(dir.resolve(stem + "-crash-failover-cdf"), "Crash failover (SIGKILL → next elected)",
        "milliseconds", s, false);
  }

  private Path plotPartition() throws IOException {
    Map<String, List<Double>> s = new LinkedHashMap<>();
    r.partition.forEach((k, v) -> s.put(k.label(),
        v.stream().filter(Results.PartitionTrial::steppedDown).map(Results.PartitionTrial::windowMs).toList()));
    return Plots.cdf(dir.resolve(stem + "-stale-window-cdf"),
        "Stale-leader window (old step-down − new elected; > 0 = two leaders)", "milliseconds", s, false);
  }

  private void writeCsv() throws IOException {
    StringBuilder c = new StringBuilder("scenario,contender,ttl_s,trial,value_ms\n");
    r.floor.forEach((k, v) -> rowsCsv(c, "floor: " + k, "-", "-", v));
    r.handover.forEach((k, v) -> rowsCsv(c, "handover", k.label(), Integer.toString(r.options.handoverTtl()), v));
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> rowsCsv(c, "crash", k.label(), ttl.toString(), v)));
    r.partition.forEach((k, v) -> {
      rowsCsv(c, "partition: new leader", k.label(), Integer.toString(r.options.partitionTtl()),
          v.stream().map(Results.PartitionTrial::newLeaderMs).toList());
      rowsCsv(c, "partition: step-down", k.label(), Integer.toString(r.options.partitionTtl()),
          v.stream().map(t -> t.steppedDown() ? t.stepDownMs() : Double.NaN).toList());
    });
    for (Results.ScaleRun s : r.scale) {
      rowsCsv(c, "scale handover x" + s.count() + " " + s.mode(), "Leasehold",
          Integer.toString(r.options.scaleTtl()), s.handovers());
    }
    Files.writeString(dir.resolve(stem + "-samples.csv"), c.toString(), StandardCharsets.UTF_8);
  }

  private static void rowsCsv(StringBuilder c, String scenario, String who, String ttl, List<Double> v) {
    for (int i = 0; i < v.size(); i++) {
      c.append('"').append(scenario.replace("\"", "'")).append("\",\"").append(who).append("\",")
          .append(ttl).append(',').append(i).append(',')
          .append(Double.isNaN(v.get(i)) ? "" : String.format(Locale.ROOT, "%.3f", v.get(i))).append('\n');
    }
  }

  // ---- formatting ----

  private double capMs() {
    return (3.0 * r.options.partitionTtl() + 5) * 1000;
  }

  private static Stats stats(List<Double> v) {
    return v == null || v.isEmpty() ? null : Stats.of(v);
  }

  private static List<String> statsRow(String name, Stats s) {
    if (s == null) {
      return List.of(name, "0", "–", "–", "–", "–");
    }
    return List.of(name, Integer.toString(s.n()), ms(s.p50()), ms(s.p90()), ms(s.p99()), ms(s.max()));
  }

  /** writeMethods lists the write RPCs (raft proposals when they reach etcd) seen in a window. */
  private static String writeMethods(EtcdMetrics.Rates x) {
    List<String> writes = List.of("LeaseGrant", "LeaseRevoke", "Txn", "Put", "DeleteRange");
    return x.messagesPerSecByMethod().entrySet().stream()
        .filter(e -> writes.contains(e.getKey()))
        .map(e -> e.getKey() + " " + f1(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  private static String topMethods(EtcdMetrics.Rates x) {
    return x.messagesPerSecByMethod().entrySet().stream()
        .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
        .limit(3)
        .map(e -> e.getKey() + " " + f1(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  static String ms(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (Math.abs(v) >= 1000) {
      return String.format(Locale.ROOT, "%.2f s", v / 1000);
    }
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%.0f ms", v);
    }
    return String.format(Locale.ROOT, "%.1f ms", v);
  }

  private static String signed(double v) {
    return Double.isNaN(v) ? "–" : (v >= 0 ? "+" : "−") + ms(Math.abs(v));
  }

  private static String kib(double bytes) {
    return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%.0f KiB", bytes / 1024);
  }

  private static String f0(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String f1(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String f2(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String verdict(boolean ok, String by) {
    return ok ? "met" : "**missed**" + (by.isBlank() ? "" : " " + by);
  }

  private void h1(String s) {
    md.append("# ").append(s).append("\n\n");
  }
}
