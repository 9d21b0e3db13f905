package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.f0;
import static dev.leasehold.bench.ReportFormat.f1;
import static dev.leasehold.bench.ReportFormat.f2;
import static dev.leasehold.bench.ReportFormat.kib;
import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.stats;
import static dev.leasehold.bench.ReportFormat.topMethods;

import dev.leasehold.bench.contender.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * ReportCost writes the cost sections of {@link Report}: what etcd serves while idle, the standby lease
 * against its absence, and many electors on one key.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportCost extends MarkdownReport {
  private final Results r;

  ReportCost(Results results) {
    this.r = results;
  }

  /** markdown writes the idle, standby and scale sections and returns them. */
  String markdown() {
    idle();
    standby();
    scale();
    return md.toString();
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
    String arrival = r.options.scalePaceMicros() > 0
        ? "The electors start one every " + r.options.scalePaceMicros() + " µs, and so do the jetcd Election "
            + "candidates (`--scale-pace-us`), on a fresh key"
        : "All electors start at once, each as soon as the one before it has started, on a fresh key";
    p(arrival + " (TTL " + r.options.scaleTtl() + " s). First leader: from "
        + "the first `start()` to the first elected callback, on a shared client that is already connected "
        + "(its first call, which loads jetcd's, gRPC's and Netty's classes in a fresh JVM, is timed apart "
        + "as \"client connect\" and not counted; then a warm-up cold start of as many candidates on another "
        + "key loads and compiles each contender's own path, jetcd Election's as Leasehold's, and is not "
        + "counted either; its calls are in the cold start's request counts); all know: until every elector "
        + "reports that "
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
          s.values().containsKey("client_connect_ms") ? ms(s.value("client_connect_ms")) : "–",
          ms(s.value("first_leader_ms")), ms(s.value("all_know_leader_ms")),
          h == null ? "–" : ms(h.p50()) + " / " + ms(h.p99()) + " / " + ms(h.max()) + " (n=" + h.n() + ")",
          Double.isNaN(s.proposalsPerHandover()) ? "–" : f0(s.proposalsPerHandover()),
          ms(s.value("failover_ms")) + " / " + f0(s.value("proposals_per_failover")),
          kib(s.value("heap_bytes_per_elector")), f2(s.value("threads_per_elector")),
          kib(s.value("rss_bytes_per_elector")),
          s.idle() == null ? "–" : f2(s.idle().proposalsPerSec()) + " / " + f0(s.idle().rpcsPerSec()),
          f0(s.value("leases_left_after_close")), s.failure() == null ? "" : s.failure()));
    }
    table(List.of("client", "electors", "client connect", "first leader", "all know", "handover p50 / p99 / max",
        "proposals/handover", "leader closed: failover / proposals", "heap/elector", "threads/elector", "RSS/elector", "idle proposals/s / RPCs/s",
        "leases left after close", "failure"), rows);
    // Whose CPU the cold start used: a client bound by its own CPU waits on itself, not on etcd.
    List<List<String>> cpu = new ArrayList<>();
    for (Results.ScaleRun s : r.scale) {
      if (s.values().containsKey("cold_start_jvm_cpu_to_first_ms")) {
        double wall = s.value("all_know_leader_ms");
        cpu.add(List.of(s.mode(), Integer.toString(s.count()), ms(s.value("start_calls_ms")),
            ms(s.value("first_leader_ms")),
            ms(s.value("cold_start_jvm_cpu_to_first_ms")), ms(wall), ms(s.value("cold_start_jvm_cpu_ms")),
            Double.isNaN(wall) ? "–" : f0(100 * s.value("cold_start_jvm_cpu_ms") / wall) + " %",
            ms(s.value("cold_start_etcd_cpu_ms"))));
      }
    }
    if (!cpu.isEmpty()) {
      p("CPU time of the cold start, from the first `start()`: the JVM's own (its candidates and its client, "
          + "from the JVM) until the first leader and until every elector knew it, and the etcd members' "
          + "(`process_cpu_seconds_total`, summed; 10 ms steps) until every elector knew it. start() calls: "
          + "how long the main thread took to call every candidate's `start()`, one after another: jetcd "
          + "Election's candidates open their observation there, so its herd arrives over that time. jetcd Election's "
          + "JVM runs the same count of candidates on one shared client. This machine has "
          + Runtime.getRuntime().availableProcessors() + " cores.");
      table(List.of("client", "candidates", "start() calls", "first leader", "JVM CPU until then", "all know",
          "JVM CPU until then", "of one core", "etcd members' CPU"), cpu);
    }
    if (!r.coldStarts.isEmpty()) {
      p("The cold start again, " + r.coldStarts.size() + " times, one after the other (`--scale-cold-rounds`): "
          + "each round starts " + r.options.scaleCount() + " Leasehold electors (shared client, standby leases) in "
          + "a fresh JVM on a fresh key, with the same warm-up, then as many jetcd Election candidates. The summary "
          + "judges the first leader on the medians of these rounds and the table above.");
      List<List<String>> rounds = new ArrayList<>();
      for (Results.ColdStart c : r.coldStarts) {
        rounds.add(List.of(Integer.toString(c.round()), ms(c.leaseholdFirstMs()), ms(c.leaseholdStartCallsMs()),
            ms(c.electionFirstMs()), ms(c.electionStartCallsMs())));
      }
      table(List.of("round", "Leasehold first leader", "Leasehold start() calls", "jetcd Election first leader",
          "jetcd Election start() calls"), rounds);
    }
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
    List<List<String>> bursts = new ArrayList<>();
    for (Results.ScaleRun s : r.scale) {
      if (s.values().containsKey("start_proposals")) {
        bursts.add(List.of(s.mode(), Integer.toString(s.count()), f0(s.value("start_proposals")),
            s.values().get("start_messages_by_method"), f0(s.value("proposals_per_failover")),
            s.values().getOrDefault("failover_messages_by_method", "–")));
      }
    }
    if (!bursts.isEmpty()) {
      p("Requests in the cold start (from the scale JVM's launch until it settled) and in the leader's "
          + "close (until every elector knows the next leader): committed proposals, and the request "
          + "messages the members received, by method, summed over members.");
      table(List.of("client", "electors", "cold start: proposals", "cold start: requests",
          "leader closed: proposals", "leader closed: requests"), bursts);
    }
    for (Results.ScaleRun s : r.scale) {
      List<ColdStartHops.Hop> hops = ColdStartHops.parse(s.values().get("cold_start_hops"));
      if (hops.isEmpty()) {
        continue;
      }
      p("Cold start hop by hop, " + s.mode() + ", " + s.count() + " electors: the handover trace's marks of "
          + "every elector from the first `start()` until every elector knew the leader, in ms since the first "
          + "`start()` (the marks are not told apart by elector). With standby leases an elector starts with "
          + "its cold campaign: GRANT_SENT at once, CAS_SENT when the grant reaches its loop (GRANT_ON_LOOP), "
          + "and no read. The POLL marks are reads: without standby leases every elector's first, with them "
          + "only those of electors sent back to the read-first path. The marks come from a second cold "
          + "start of the same count in a fresh JVM with the trace on, whose events slow it: there the first "
          + "leader came at "
          + ms(s.value("first_leader_traced_ms")) + " (at " + ms(s.value("first_leader_ms"))
          + " untraced, the scale table's figure).");
      List<List<String>> hopRows = new ArrayList<>();
      for (ColdStartHops.Hop h : hops) {
        hopRows.add(List.of(h.name(), Integer.toString(h.n()), ms(h.first()), ms(h.p50()), ms(h.max())));
      }
      table(List.of("hop", "marks", "first", "median", "last"), hopRows);
    }
  }
}
