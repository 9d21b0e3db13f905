package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.f0;
import static dev.leasehold.bench.ReportFormat.f1;
import static dev.leasehold.bench.ReportFormat.f2;
import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.signed;
import static dev.leasehold.bench.ReportFormat.stats;
import static dev.leasehold.bench.ReportFormat.topMethods;
import static dev.leasehold.bench.ReportFormat.writeMethods;

import dev.leasehold.bench.contender.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * ReportAnalysis writes the closing sections of {@link Report}: why the targets {@link ReportSummary}
 * found missed were missed (from the run's own figures, against the protocol as built: PROTOCOL.md
 * §4.3–§4.5), other findings, and how it was measured.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
final class ReportAnalysis extends MarkdownReport {
  private final Results r;
  private final String stem;
  private final List<String> missed;

  ReportAnalysis(Results results, String stem, List<String> missed) {
    this.r = results;
    this.stem = stem;
    this.missed = missed;
  }

  /** markdown writes the missed-targets, other-findings and method sections and returns them. */
  String markdown() {
    analysis();
    findings();
    method();
    return md.toString();
  }

  private void analysis() {
    h2("Why targets were missed");
    if (missed.isEmpty()) {
      p("Every target was met in this run.");
      return;
    }
    if (missed.contains("handoverJetcd") || missed.contains("handoverBare")) {
      handover();
    }
    for (Map.Entry<Integer, Map<Kind, List<Double>>> e : r.crash.entrySet()) {
      if (missed.contains("crash" + e.getKey())) {
        crash(e.getKey(), stats(e.getValue().get(Kind.LEASEHOLD)), stats(e.getValue().get(Kind.JETCD)));
      }
    }
    if (missed.contains("idleMessages")) {
      idleMessages();
    }
    if (missed.contains("idle")) {
      p("**Idle proposals.** Leasehold should send no raft proposal while idle (keep-alives and "
          + "linearizable reads are not proposals). The non-zero counts above are listed per candidate count "
          + "with the busiest methods; any write in them is a bug to chase in core.");
    }
    r.scale.stream().filter(s -> s.mode().equals("shared client")).findFirst().ifPresent(this::scale);
    if (missed.contains("stale")) {
      List<Results.PartitionTrial> pt = r.partition.get(Kind.LEASEHOLD);
      double max = pt.stream().mapToDouble(Results.PartitionTrial::windowMs).max().orElse(Double.NaN);
      p("**Stale-leader window.** Largest window " + signed(max) + ". Leasehold's deadline is the send time "
          + "of its last confirmed renewal + TTL × 0.99 − TTL/10; etcd cannot expire the lease before send "
          + "time + TTL. A non-negative window means the step-down callback came later than that bound, "
          + "i.e. event dispatch ate the margin; the margin (TTL/10) must cover it.");
    }
  }

  private void handover() {
    Map<String, Stats> f = new LinkedHashMap<>();
    r.floor.forEach((k, v) -> f.put(k, stats(v)));
    Stats lh = stats(r.handover.get(Kind.LEASEHOLD));
    Stats je = stats(r.handover.get(Kind.JETCD));
    Stats bare = f.get(Floor.PATH_STANDBY);
    StringBuilder s = new StringBuilder("**Graceful handover.** ");
    if (lh != null) {
      s.append("Leasehold took ").append(ms(lh.p50())).append(" p50 / ").append(ms(lh.p99())).append(" p99");
      if (je != null) {
        s.append(", jetcd's `Election` ").append(ms(je.p50())).append(" / ").append(ms(je.p99()));
      }
      if (bare != null) {
        s.append("; twice the bare path's p50 is ").append(ms(2 * bare.p50()));
      }
      s.append(". ");
    }
    s.append("The shape is the same as Election's: `resign()` commits one transaction, `If ModRevision(K) == token "
        + "∧ CreateRevision(P(succ)) == …, Then Put(K, succ.id, lease = succ), Put(P(own), …)` (one raft "
        + "proposal), and the successor learns from its watch that K is bound to its own standby lease and "
        + "leads with no write of its own: one proposal and one watch notification, as Election's delete of "
        + "the leader key and the next waiter's watch. ");
    Double pl = r.proposalsPerHandover.get(Kind.LEASEHOLD);
    Double pj = r.proposalsPerHandover.get(Kind.JETCD);
    if (pl != null && pj != null) {
      s.append("Proposals per handover in this run: Leasehold ").append(f1(pl)).append(", Election ")
          .append(f1(pj)).append(". ");
    }
    HandoverHops hops = r.handoverHops.get(Kind.LEASEHOLD);
    if (hops != null && hops.size() > 0) {
      Map<String, List<String>> rows = new LinkedHashMap<>();
      for (List<String> row : hops.rows(r.floorHops)) {
        rows.put(row.get(0), row);
      }
      s.append("In the ").append(hops.size()).append(" traced handovers ");
      if (rows.containsKey("HANDOVER_SENT") && rows.containsKey("WATCH_PUT")) {
        s.append("the transaction's commit and its watch notification (HANDOVER_SENT → WATCH_PUT) take about ")
            .append(ms(num(rows.get("WATCH_PUT").get(2)) - num(rows.get("HANDOVER_SENT").get(2))))
            .append(" at p50 (the difference of the two hops' p50 from t0), and ");
      }
      List<String> ours = new ArrayList<>();
      double sum = 0;
      for (List<String> row : rows.values()) {
        String h = row.get(0);
        boolean own = h.endsWith("_ON_LOOP") && !h.equals("HANDOVER_ON_LOOP")
            || h.equals("ELECTED_PUBLISHED") || h.equals("ELECTED_LISTENER");
        if (own && !Double.isNaN(num(row.get(4)))) {
          ours.add(h + " " + ms(num(row.get(4))) + " / " + ms(num(row.get(5))));
          sum += num(row.get(4));
        }
      }
      s.append("the steps that are ours (step p50 / p99) are ").append(String.join(", ", ours))
          .append(", together ").append(ms(sum)).append(" of step p50s: thread hops, where the store thread "
              + "hands each input to the elector's event loop (`*_ON_LOOP`), and the loop publishes ELECTED and "
              + "hands it to the listener dispatcher (ELECTED_PUBLISHED → ELECTED_LISTENER). Leasehold's rule "
              + "that user callbacks never run on the event loop costs that last hop, one more than Election, "
              + "whose listener runs on jetcd's thread. (HANDOVER_ON_LOOP, the resigner's reply, is off the "
              + "successor's path.) ");
    }
    if (f.get(Floor.TXN) != null && f.get(Floor.WATCH) != null) {
      s.append("On this machine a raw txn round trip takes ").append(ms(f.get(Floor.TXN).p50())).append(" p50 / ")
          .append(ms(f.get(Floor.TXN).p99())).append(" p99 and a put reaches a watcher in ")
          .append(ms(f.get(Floor.WATCH).p50())).append(" / ").append(ms(f.get(Floor.WATCH).p99())).append("; ");
    }
    if (bare != null) {
      s.append("the bare path (revoke → watch → txn with standby lease, raw jetcd) took ").append(ms(bare.p50()))
          .append(" / ").append(ms(bare.p99())).append(". ");
      Stats idle = f.get(Floor.PATH_STANDBY_IDLE);
      if (idle != null) {
        s.append("Those are back to back: each call follows the last within milliseconds. A handover trial "
            + "starts after 150–250 ms in which the cluster and the candidates' clients were idle, and the same "
            + "bare path started after such a pause took ").append(ms(idle.p50())).append(" / ")
            .append(ms(idle.p99())).append(", ").append(ms(idle.p50() - bare.p50()))
            .append(" more at p50: what waking an idle cluster and idle clients costs on this VM, which any "
                + "library's handover after such a pause pays too. ");
      }
    }
    Stats off = stats(r.handover.get(Kind.LEASEHOLD_NO_STANDBY));
    Stats pathGt = f.get(Floor.PATH_GRANT_TXN);
    if (off != null && pathGt != null) {
      s.append("Without the standby lease (a release, then grant and txn) a handover takes ").append(ms(off.p50()))
          .append(" / ").append(ms(off.p99())).append(" (bare path ").append(ms(pathGt.p50())).append(" / ")
          .append(ms(pathGt.p99())).append("). ");
    }
    s.append("The p99 carries etcd's own stalls on this VM: the members logged ")
        .append(r.etcdSlowApplies < 0 ? "an unknown number of" : Long.toString(r.etcdSlowApplies))
        .append(" applies slower than 100 ms during the run.");
    p(s.toString());
  }

  // A number of HandoverHops' table ("%.2f", or "–" when absent).
  private static double num(String cell) {
    try {
      return Double.parseDouble(cell);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** crash explains a crash-failover miss at one TTL by the renewal intervals (PROTOCOL.md §4.4). */
  private void crash(int ttlSeconds, Stats lh, Stats je) {
    double ttl = ttlSeconds;
    double window = ttl * 0.99 - ttl / 10;
    double lhEvery = Math.min(ttl / 2, Math.max(ttl / 6, window - 2));
    double jeEvery = Math.ceil(ttl / 3 / 0.5) * 0.5;
    double lhLeft = ttl - lhEvery / 2;
    double jeLeft = ttl - jeEvery / 2;
    StringBuilder s = new StringBuilder("**Crash failover, TTL " + ttlSeconds + " s.** Leasehold p50 / p99 "
        + ms(lh.p50()) + " / " + ms(lh.p99()) + ", jetcd's `Election` " + ms(je.p50()) + " / " + ms(je.p99())
        + " (n=" + lh.n() + " / " + je.n() + "). A crashed leader's lease outlives it by the TTL minus the time "
        + "since its last renewal, so renewing often is failing over later. Leasehold's MASTER renews as late "
        + "as leaves 2 s of its lease window, clamped to [TTL/6, TTL/2]: every " + secs(lhEvery) + " here");
    if (window - 2 <= ttl / 6) {
      s.append(" (TTL/6: a ").append(ttlSeconds).append(" s TTL leaves ").append(secs(window))
          .append(" of window, less than etcd's leader election may take, so it cannot renew later)");
    }
    s.append(". jetcd's `keepAlive` helper renews every TTL/3 on a 500 ms tick, about every ").append(secs(jeEvery))
        .append(". With the kill at a random point of the cycle the lease outlives the leader by TTL − interval/2 "
            + "on average: ").append(secs(lhLeft)).append(" for Leasehold, ").append(secs(jeLeft))
        .append(" for Election, ");
    if (lhLeft > jeLeft) {
      s.append("so Leasehold is slower by design at this TTL, by about ").append(secs(lhLeft - jeLeft))
          .append(" at p50 (measured: ").append(signed(lh.p50() - je.p50())).append("). ");
    } else {
      s.append("so renewals alone put Leasehold ").append(secs(jeLeft - lhLeft))
          .append(" ahead at this TTL; the gap measured (p50 ").append(signed(lh.p50() - je.p50()))
          .append(", p99 ").append(signed(lh.p99() - je.p99())).append(") comes from the rest of the path. ");
    }
    s.append("After that both wait for the same things: etcd's lessor sweeps expired leases every 500 ms (0–500 ms "
        + "more per trial) and revokes the lease through raft, and the delete reaches the waiters' watches; "
        + "then Leasehold's queue head campaigns at once (rank r only after min(r, 32) × 100 ms and a read that "
        + "still finds K absent) and Election's next waiter's `campaign` returns. Each trial is in the CSV; "
        + "the members logged ")
        .append(r.etcdSlowApplies < 0 ? "an unknown number of" : Long.toString(r.etcdSlowApplies))
        .append(" applies slower than 100 ms during the run.");
    p(s.toString());
  }

  private void idleMessages() {
    Map<Integer, EtcdMetrics.Rates> lh = r.idle.get(Kind.LEASEHOLD);
    Map<Integer, EtcdMetrics.Rates> je = r.idle.get(Kind.JETCD);
    int n = lh.keySet().stream().filter(je::containsKey).max(Integer::compare).orElseThrow();
    double ttl = r.options.idleTtl();
    double every = 3 * ttl / 5;
    p("**Idle messages per follower.** At " + n + " candidates etcd received " + f1(lh.get(n).messagesPerSec())
        + " messages/s from Leasehold (" + topMethods(lh.get(n)) + ") and " + f1(je.get(n).messagesPerSec())
        + " from Election (" + topMethods(je.get(n)) + "): " + f2(lh.get(n).messagesPerSec() / n) + " against "
        + f2(je.get(n).messagesPerSec() / n) + " per follower (messages/s ÷ candidates). A Leasehold follower "
        + "renews its standby lease every 3·TTL/5 (" + secs(every) + " at TTL " + f0(ttl) + " s): one keep-alive "
        + "and one linearizable read (a read-only txn that is also its poll and counts the queue ahead of it), "
        + "about " + f2(2 / every) + " messages/s. An Election waiter sends only its lease's keep-alive, every "
        + "TTL/3 on a 500 ms tick (about " + f2(1 / (Math.ceil(ttl / 3 / 0.5) * 0.5)) + " messages/s), and "
        + "reads nothing while it waits: the server holds its `campaign` call open.");
  }

  /** scale explains the misses at the scale count (the shared-client run with standby leases). */
  private void scale(Results.ScaleRun s) {
    String at = s.count() + " electors";
    if (missed.contains("scaleHandover")) {
      p("**Proposals per handover at " + at + ".** " + f1(s.proposalsPerHandover()) + " per handover over "
          + r.options.scaleHandovers() + ". A handover to the queue's head is one transaction (one proposal) "
          + "whatever the queue's length; more means a handover's transaction was refused or failed (the "
          + "resigner then releases its lease, the key goes, and the queue campaigns as after a crash) or "
          + "candidates granted standby leases meanwhile.");
    }
    if (missed.contains("scaleFailover")) {
      p("**Proposals when the leader closes, at " + at + ".** " + f0(s.value("proposals_per_failover"))
          + " until every elector knew the next leader, the next ELECTED " + ms(s.value("failover_ms"))
          + " after the close" + requests(s, "failover_messages_by_method") + ". The close revokes the lease "
          + "(one proposal) and only the queue's head campaigns at once (one more); rank r waits "
          + "min(r, 32) × 100 ms, reads K and campaigns only if it is still absent. Extra proposals mean a "
          + "stagger ran out before the head's key reached that candidate: for instance the head learned of the "
          + "delete late, among " + s.count() + " watch deliveries in one JVM.");
    }
    if (missed.contains("scaleIdle")) {
      String writes = writeMethods(s.idle());
      p("**Idle proposals at " + at + ".** " + s.idle().proposalCount() + " proposals in "
          + f0(s.idle().seconds()) + " s once settled"
          + (s.idleLater() == null ? "" : ", " + s.idleLater().proposalCount() + " in the next "
              + f0(s.idleLater().seconds()) + " s")
          + ". " + (writes.isEmpty()
              ? "No client sent a write in that window, so these were etcd's own revocations of leases that "
                  + "expired (left over from the start-up)."
              : "Client writes in that window (messages/s): " + writes + "."));
    }
    if (missed.contains("scaleFirstLeader")) {
      Optional<Results.ScaleRun> election = r.scaleRun(ScalePhase.ELECTION_MODE, s.count());
      p("**First leader at " + at + ".** " + ms(s.value("first_leader_ms")) + " from the first `start()` to the "
          + "first ELECTED (every elector knew it after " + ms(s.value("all_know_leader_ms")) + ")"
          + (s.values().containsKey("start_proposals")
              ? "; the cold start committed " + f0(s.value("start_proposals")) + " proposals" : "")
          + requests(s, "start_messages_by_method") + ". At a cold start each candidate makes its cold "
          + "campaign: a lease grant, then the campaign's transaction, whose Else branch queues a loser (two "
          + "calls, no read first, PROTOCOL.md §4.5). On one shared client each of these rounds queues behind "
          + "the same call of all " + s.count()
          + " electors, and behind the electors' start-up" + hopsSentence(s) + withoutCount(s) + cpuSentence(s)
          + election.map(x -> ". jetcd's Election has two calls in a row (a grant, then its campaign, which the "
              + "server answers once the candidate leads): its first leader came " + ms(x.value("first_leader_ms"))
              + " after the first of " + x.count() + " candidates started on one shared client in this run"
              + requests(x, "start_messages_by_method")).orElse("")
          + ". The cold campaign's two calls wait as long as their lease serves, so a round is not given up "
          + "at the rpc timeout. What is left lies in the client's start-up, not in etcd: many electors "
          + "started at once in one JVM keep its cores busy, mostly with the JIT compiling their code and the "
          + "shared client's one event loop (their own loops took 10 to 20 ms of it by hand), while the replies "
          + "wait (bench/HISTORY.md).");
    }
  }

  // "; in this run the reads were answered …" from the cold start's trace, or nothing when it was not recorded.
  private static String hopsSentence(Results.ScaleRun s) {
    Map<String, ColdStartHops.Hop> h = new HashMap<>();
    for (ColdStartHops.Hop x : ColdStartHops.parse(s.values().get("cold_start_hops"))) {
      h.put(x.name(), x);
    }
    ColdStartHops.Hop grant = h.get("GRANT_SENT");
    ColdStartHops.Hop granted = h.get("GRANT_ON_LOOP");
    ColdStartHops.Hop cas = h.get("CAS_SENT");
    ColdStartHops.Hop casAcked = h.get("CAS_ACKED");
    if (grant == null || granted == null || cas == null || casAcked == null) {
      return "";
    }
    return ": in a traced rerun of this cold start (first leader at " + ms(s.value("first_leader_traced_ms"))
        + ") the first grant was sent at " + ms(grant.first()) + " and reached its elector's loop at "
        + ms(granted.first()) + ", and the first campaign, sent at " + ms(cas.first()) + ", was answered at "
        + ms(casAcked.first()) + " (the cold start's trace, below the scale table)";
  }

  // What the run without standby leases, which reads K first and has no queue, shows.
  private String withoutCount(Results.ScaleRun s) {
    Optional<Results.ScaleRun> off = r.scaleRun(ScalePhase.NO_STANDBY_MODE, s.count());
    if (off.isEmpty()) {
      return "";
    }
    Optional<ColdStartHops.Hop> grant = ColdStartHops.parse(off.get().values().get("cold_start_hops")).stream()
        .filter(h -> h.name().equals("GRANT_SENT")).findFirst();
    return grant.map(g -> ". Without standby leases a candidate reads K before its grant (no cold campaign, no "
        + "queue): there the first grant was sent at "
        + ms(g.first()) + " and the first leader came at " + ms(off.get().value("first_leader_traced_ms"))
        + " (traced; " + ms(off.get().value("first_leader_ms")) + " untraced)").orElse("");
  }

  // Whose CPU the cold start used, from t0 until every elector knew the leader, or nothing when not recorded.
  private static String cpuSentence(Results.ScaleRun s) {
    if (!s.values().containsKey("cold_start_jvm_cpu_ms") || !s.values().containsKey("cold_start_etcd_cpu_ms")) {
      return "";
    }
    double wall = s.value("all_know_leader_ms");
    return ". The calls wait on this client's CPU, not on etcd's: from the first `start()` until every elector "
        + "knew the leader (" + ms(wall) + "), the scale JVM used " + ms(s.value("cold_start_jvm_cpu_ms"))
        + " of CPU time (" + String.format(Locale.ROOT, "%.0f", 100 * s.value("cold_start_jvm_cpu_ms") / wall)
        + " % of one core) and the three etcd members " + ms(s.value("cold_start_etcd_cpu_ms")) + " together";
  }

  // "; requests (summed over members): LeaseGrant=3 Txn=12 …" from a scale value, or nothing when it was not recorded.
  private static String requests(Results.ScaleRun s, String name) {
    String v = s.values().get(name);
    return v == null || v.isBlank() ? "" : "; requests (summed over members): " + v;
  }

  private static String secs(double seconds) {
    return String.format(Locale.ROOT, "%.2f s", seconds);
  }

  private void findings() {
    List<String> notes = new ArrayList<>();
    String herd = r.scale.stream().filter(s -> !Double.isNaN(s.proposalsPerHandover()))
        .map(s -> f0(s.proposalsPerHandover()) + " at " + s.count() + " electors (" + s.mode() + ")")
        .collect(Collectors.joining(", "));
    if (!herd.isEmpty()) {
      notes.add("Raft proposals per handover at scale: " + herd + ".");
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
        + "partition uses the it-harness chaos tools' `ClientProxies` (one `TcpProxy` per member for each "
        + "candidate; BLACKHOLE drops every byte, heal resets the connections that lost bytes).\n");
    md.append("- Raw samples: [`" + stem + "-samples.csv`](" + stem + "-samples.csv).\n\n");
  }
}
