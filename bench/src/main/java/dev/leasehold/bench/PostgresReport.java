package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PostgresReport writes the Markdown report of the PostgreSQL phases, its CDF plots and a CSV of every sample.
 * Every number in it comes from {@link PostgresResults} and {@link Results} (the run's machine, command and load);
 * the prose only names the mechanisms. Not thread-safe.
 */
final class PostgresReport extends SqlReport {
  /** WAKE_UPS pairs each floor figure that wakes a follower with what ends the holder's claim in it. */
  private static final Map<String, String> WAKE_UPS = new LinkedHashMap<>();

  static {
    WAKE_UPS.put(PostgresFloor.NOTIFY, "NOTIFY alone, in its own transaction");
    WAKE_UPS.put(PostgresFloor.NOTIFY_RELEASE, "NOTIFY riding the holder's release (from the release's send)");
    WAKE_UPS.put(PostgresFloor.UNLOCK, "advisory lock: the holder's unlock alone");
    WAKE_UPS.put(PostgresFloor.UNLOCK_RELEASE, "advisory lock: release + commit, then unlock (from the release's send)");
    WAKE_UPS.put(PostgresFloor.TERMINATE, "advisory lock: the holder's session is terminated");
    WAKE_UPS.put(PostgresFloor.ABORT, "advisory lock: the holder's client vanishes");
  }

  private final PostgresResults r;

  PostgresReport(Results run, PostgresResults results, Path dir, String stem) {
    super(run, dir, stem);
    this.r = results;
  }

  @Override
  protected String title() {
    return "Leasehold PostgreSQL benchmark";
  }

  @Override
  protected String what() {
    return "The PostgreSQL floor, Leasehold's JDBC backend and the anchor contenders, measured side by side on one "
        + "private postgres (and a PgBouncer in front of it)";
  }

  @Override
  protected void sections() throws IOException {
    machine();
    targets();
    if (!r.floor.isEmpty()) {
      floor();
    }
    if (!r.handover.isEmpty()) {
      handover(handoverPlot("PostgreSQL", r.handover));
    }
    if (!r.crash.isEmpty()) {
      crash(crashPlot("PostgreSQL", r.crash));
    }
    if (!r.partition.isEmpty()) {
      Map<String, List<Double>> w = new LinkedHashMap<>();
      r.partition.forEach((k, v) -> w.put(k.label(), windows(v)));
      partitionSection("PostgreSQL", "postgres", r.partition, r.options.partitionTtlMillis(),
          Plots.cdf(dir.resolve(stem + "-stale-window-cdf"),
              "PostgreSQL: stale-leader window (old step-down − new elected; > 0 = two leaders)", "milliseconds", w,
              false));
    }
    if (!r.idle.isEmpty()) {
      idle();
    }
    method();
  }

  @Override
  protected List<String> problems() {
    return r.problems;
  }

  private void machine() {
    h2("Machine");
    List<List<String>> rows = machineRows();
    rows.add(List.of("PostgreSQL", r.serverVersion + "; on 127.0.0.1, launched by the it-harness launcher ("
        + r.serverSettings + ")"));
    rows.add(List.of("PgBouncer", r.bouncerVersion + ", transaction pooling, on 127.0.0.1"));
    rows.add(List.of("pgjdbc", r.driverVersion));
    rows.add(loadRow());
    if (!r.loadBeforeFloor.isEmpty()) {
      rows.add(List.of("load average around the floor", "before " + r.loadBeforeFloor + ", after "
          + r.loadAfterFloor));
    }
    table(List.of("", ""), rows);
  }

  private void targets() {
    h2("Targets");
    p("Targets of issue 25, judged for Leasehold-JDBC.");
    List<List<String>> rows = new ArrayList<>();
    Stats lh = stats(r.handover.get(JdbcKind.LEASEHOLD_JDBC));
    Stats wake = stats(r.floor.get(PostgresFloor.UNLOCK_RELEASE));
    Stats take = stats(r.floor.get(PostgresFloor.TAKE));
    if (lh != null && wake != null && take != null) {
      double bound = 2 * (wake.p50() + take.p50());
      rows.add(List.of("graceful handover p50 ≤ 2 × the floor's wake + take (advisory lock after a release)",
          "p50 " + fine(lh.p50()) + " ≤ " + fine(bound) + "?", verdict(lh.p50() <= bound)));
    }
    if (lh != null) {
      rows.add(List.of("graceful handover p99 < 50 ms", "p99 " + fine(lh.p99()) + " (n=" + lh.n() + ")",
          verdict(lh.p99() < 50)));
    }
    r.crash.forEach((ttl, m) -> {
      Stats s = stats(m.get(JdbcKind.LEASEHOLD_JDBC));
      if (s != null) {
        double bound = ttl + 1000;
        rows.add(List.of("crash failover p99 ≤ TTL + 1 s (TTL " + ReportFormat.ms(ttl) + ")", "p99 "
            + ReportFormat.ms(s.p99()) + " ≤ " + ReportFormat.ms(bound) + "? (n=" + s.n() + ")",
            verdict(s.p99() <= bound)));
      }
    });
    partitionTarget(rows, r.partition.get(JdbcKind.LEASEHOLD_JDBC));
    Map<Integer, PostgresResults.Idle> idle = r.idle.get(JdbcKind.LEASEHOLD_JDBC);
    if (idle != null && !idle.isEmpty()) {
      StringBuilder per = new StringBuilder();
      idle.forEach((n, x) -> per.append(per.length() == 0 ? "" : "; ").append(n).append(": ")
          .append(f1(x.transactionsPerSec() / n)).append("/s per candidate"));
      rows.add(List.of("idle statements/s per candidate, at 1, 10 and 100 candidates", per.toString(),
          "reported"));
    }
    if (!rows.isEmpty()) {
      table(List.of("target", "measured (Leasehold-JDBC)", "met?"), rows);
    }
  }

  private void idle() {
    h2("Server load while idle");
    p("N candidates of one contender in one JVM, each with its own sessions, TTL "
        + ReportFormat.ms(r.options.idleTtlMillis()) + "; after a leader is elected and start-up settled, the bench "
        + "reads `pg_stat_database` (`xact_commit + xact_rollback`, `numbackends`) before and after a "
        + run.options.idleWindowSeconds() + " s window. Every statement these contenders send runs in autocommit, "
        + "so a transaction is a statement; a Leasehold follower's wait in `pg_advisory_lock` is one statement "
        + "per poll interval. Each read of the counters is a session of its own and counts too: the baseline row, "
        + "with no candidate running, shows that share.");
    List<List<String>> rows = new ArrayList<>();
    if (r.idleBaseline != null) {
      rows.add(List.of("(no candidates)", "0", f1(r.idleBaseline.transactionsPerSec()), "–",
          Integer.toString(r.idleBaseline.connections())));
    }
    r.idle.forEach((k, m) -> m.forEach((n, x) -> rows.add(List.of(k.label(), Integer.toString(n),
        f1(x.transactionsPerSec()), f1(x.transactionsPerSec() / n), Integer.toString(x.connections())))));
    table(List.of("contender", "candidates", "statements/s", "per candidate", "sessions at the end"), rows);
  }

  private void floor() {
    h2("The floor: raw pgjdbc round trips and wake-ups");
    p("Raw pgjdbc calls from the bench's JVM, no election library: " + r.options.floorSamples() + " samples per "
        + "figure after " + r.options.floorWarmup() + " unrecorded, back to back. Sub-millisecond figures are given "
        + "to 0.01 ms.");
    List<List<String>> rows = new ArrayList<>();
    r.floor.forEach((name, v) -> {
      Stats s = ReportFormat.stats(v);
      rows.add(s == null ? List.of(name, "0", "–", "–", "–", "–")
          : List.of(name, Integer.toString(s.n()), fine(s.p50()), fine(s.p90()), fine(s.p99()), fine(s.max())));
    });
    table(List.of("figure", "n", "p50", "p90", "p99", "max"), rows);

    Stats take = ReportFormat.stats(r.floor.get(PostgresFloor.TAKE));
    if (take == null) {
      return;
    }
    p("Wake + take, the floor of a handover: each wake-up's p50 plus the take's p50 ("
        + fine(take.p50()) + "), and twice that, the issue's bound for the graceful handover's p50. A sum of "
        + "medians, not a measured path.");
    List<List<String>> sums = new ArrayList<>();
    WAKE_UPS.keySet().stream().filter(r.floor::containsKey).forEach(figure -> {
      Stats wake = ReportFormat.stats(r.floor.get(figure));
      if (wake != null) {
        sums.add(List.of(WAKE_UPS.get(figure), fine(wake.p50()), fine(wake.p50() + take.p50()),
            fine(2 * (wake.p50() + take.p50()))));
      }
    });
    table(List.of("wake-up", "wake p50", "wake + take", "2 × (wake + take)"), sums);
  }

  private void handover(Path png) {
    h2("Graceful handover");
    p(run.options.candidates() + " candidate JVMs per contender, TTL "
        + ReportFormat.ms(r.options.handoverTtlMillis()) + ". t0: just before the leader's JVM calls `resign()`; "
        + "end: the next leader's elected callback (System.nanoTime in both JVMs, one host). "
        + run.options.handoverWarmup() + " unrecorded warm-up handovers first; "
        + JdbcScenarios.HANDOVER_PAUSE_MILLIS + "–" + (JdbcScenarios.HANDOVER_PAUSE_MILLIS + 100)
        + " ms between handovers, as in the MariaDB bench.");
    handoverTable(r.handover);
    img("PostgreSQL graceful handover CDF", png);
    HandoverHops hops = r.handoverHops;
    if (hops != null && hops.size() > 0) {
      p("Leasehold-JDBC's handovers, statement by statement (" + hops.size() + " traced; `-Dleasehold.trace=true` "
          + "in the candidate JVMs records core's Flight Recorder events, which carry System.nanoTime() where each "
          + "hop is passed). Times are from t0 (the resign line); the resigner's hops come from its JVM, the rest from "
          + "the successor's. REVOKE_SENT and REVOKE_ACKED are the resigner's release UPDATE (the row freed and "
          + "committed, its advisory lock let go); WAKE_ACKED is the successor's `pg_advisory_lock` returning; "
          + "TAKE_* its take of the free row; `*_ON_LOOP` the elector's event loop taking the answer. A hop's step "
          + "is its time minus that of the previous hop seen in the same trial.");
      table(List.of("hop", "n", "from t0 p50", "p99", "step p50", "step p99", "bare path p50 / p99"),
          hops.rows(Map.of()));
    }
  }

  private void crash(Path png) {
    h2("Crash failover");
    p(run.options.candidates() + " candidate JVMs; the leader's JVM is SIGKILLed at a random point (t0 just "
        + "before the kill) until the next leader's elected callback; a fresh candidate JVM starts right after "
        + "each kill. The kernel closes the dead JVM's sockets, so postgres ends its sessions, and their advisory "
        + "locks, at once; a lock row stays taken until it expires. `pg_try_advisory_lock` does not use a TTL; it "
        + "runs at each TTL only to sit beside the others.");
    crashTable(r.crash);
    img("PostgreSQL crash failover CDF", png);
  }

  private void method() {
    h2("How it was measured");
    md.append("- **The floor** (`bench/.../PostgresFloor.java`), on connections opened beforehand. "
        + "NOTIFY: `SELECT pg_notify(channel, payload)` in its own transaction, t0 just before `commit()`; the "
        + "listener's own thread blocks in `PGConnection.getNotifications(500)` on a direct connection and "
        + "stamps the arrival. Advisory lock: a waiter blocks in `pg_advisory_lock(k)` (the bench waits until "
        + "`pg_locks` shows it waiting), t0 just before the holder's `pg_advisory_unlock(k)`, or a third "
        + "session's `pg_terminate_backend(holder)`, or the holder's `Connection.abort()`, which closes its "
        + "socket without the protocol's Terminate message, as the kernel does for a SIGKILLed client; the end "
        + "is the waiter's return. Take: `INSERT ... ON CONFLICT (name) DO UPDATE SET holder, epoch = epoch + 1, "
        + "expires_at = clock_timestamp() + TTL WHERE expires_at <= clock_timestamp() RETURNING epoch`, then "
        + "`commit()` (the row is released between trials, untimed); renewal: `UPDATE ... SET expires_at = "
        + "clock_timestamp() + TTL WHERE name, holder and epoch match`, then `commit()`. Through PgBouncer the "
        + "notifier and the row statements run on a pooled connection (`prepareThreshold=0`); the listener "
        + "stays direct, since a LISTEN does not survive transaction pooling.\n");
    md.append("- **Leasehold-JDBC** is `JdbcLeaderElector` with its defaults except the TTL (and "
        + "`createTable(true)`), on its PostgreSQL dialect: the lease row is the truth, renewed every TTL/6 by a "
        + "conditional UPDATE on `clock_timestamp()`; followers wait in `pg_advisory_lock` on the holder's key "
        + "(bounded by `lock_timeout`) only to be woken, and poll every second.\n");
    md.append("- **ShedLock-style lock row, polled every 1 s**, `bench/.../contender/ShedLockRow.java` on "
        + "`PolledLockContender.java`: "
        + "ShedLock's documented table and statements on the database's clock (`usingDbTime()`); every second a "
        + "follower takes the row when `lock_until` has passed, and the holder extends its own by the TTL "
        + "(`lockAtMostFor`), as `KeepAliveLockProvider` does; it leads while its last poll took or extended "
        + "the row. No deadline, no fencing token. Resign unlocks and sits out one round.\n");
    md.append("- **pg_try_advisory_lock every 2 s (scheduler design)**, "
        + "`bench/.../contender/SessionLock.java` on `PolledLockContender.java`: the seed's MySQL elector on "
        + "PostgreSQL, with the "
        + "MariaDB bench's choices in its favour: a 5 s socket timeout, `idle_session_timeout` ⌈2 × TTL⌉ s, "
        + "resign unlocks everything and sits out one round.\n");
    md.append("- Times are `System.nanoTime()` (CLOCK_MONOTONIC, shared by every process on the host) taken in "
        + "the callback a user gets; percentiles are nearest-rank: every figure is a measured sample. "
        + "Contenders run one at a time on the same server; each scenario uses a fresh election name. Raw "
        + "samples: [`" + stem + "-samples.csv`](" + stem + "-samples.csv).\n\n");
  }

  @Override
  protected void samples(StringBuilder c) {
    r.floor.forEach((name, v) -> csvRows(c, "floor: " + name, "raw pgjdbc", r.options.handoverTtlMillis(), v));
    r.handover.forEach((k, v) -> csvRows(c, "handover", k.label(), r.options.handoverTtlMillis(), v));
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> csvRows(c, "crash", k.label(), ttl, v)));
    partitionSamples(c, r.partition, r.options.partitionTtlMillis());
  }

  /** fine formats a duration to 0.01 ms below 10 ms, else as {@link ReportFormat#ms}. */
  private static String fine(double v) {
    return Double.isNaN(v) || v >= 10 ? ReportFormat.ms(v) : ReportFormat.f2(v) + " ms";
  }
}
