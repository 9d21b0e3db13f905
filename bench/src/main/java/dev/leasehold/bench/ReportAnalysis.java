package dev.leasehold.bench;

import static dev.leasehold.bench.ReportFormat.f0;
import static dev.leasehold.bench.ReportFormat.f1;
import static dev.leasehold.bench.ReportFormat.ms;
import static dev.leasehold.bench.ReportFormat.signed;
import static dev.leasehold.bench.ReportFormat.stats;
import static dev.leasehold.bench.ReportFormat.writeMethods;

import dev.leasehold.bench.contender.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * ReportAnalysis writes the closing sections of {@link Report}: why the targets {@link ReportSummary}
 * found missed were missed (with the proposed change), other findings, and how it was measured.
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
}
