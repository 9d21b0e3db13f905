package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * MariaDbReport writes the Markdown report of the MariaDB phases, its CDF plots and a CSV of
 * every sample. Every number in it comes from {@link MariaDbResults} and {@link Results} (the
 * run's machine, command and load); the prose only names the mechanisms. Not thread-safe.
 */
final class MariaDbReport extends SqlReport {
  private final MariaDbResults r;

  MariaDbReport(Results run, MariaDbResults results, Path dir, String stem) {
    super(run, dir, stem);
    this.r = results;
  }

  @Override
  protected String title() {
    return "Leasehold MariaDB benchmark";
  }

  @Override
  protected String what() {
    return "Leasehold's JDBC backend and the scheduler design's `GET_LOCK` elector, measured side by side on one "
        + "private mariadbd";
  }

  @Override
  protected void sections() throws IOException {
    machine();
    targets();
    if (!r.handover.isEmpty()) {
      handover(handoverPlot("MariaDB", r.handover));
    }
    if (!r.crash.isEmpty()) {
      crash(crashPlot("MariaDB", r.crash));
    }
    if (!r.partition.isEmpty()) {
      Map<String, List<Double>> w = new LinkedHashMap<>();
      r.partition.forEach((k, v) -> w.put(k.label(), windows(v)));
      partitionSection("MariaDB", "mariadbd", r.partition, r.options.partitionTtlMillis(),
          Plots.cdf(dir.resolve(stem + "-stale-window-cdf"),
              "MariaDB: stale-leader window (old step-down − new elected; > 0 = two leaders)", "milliseconds", w,
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
    rows.add(List.of("MariaDB", r.serverVersion + " on 127.0.0.1, launched by the it-harness launcher ("
        + r.serverFlags + "); clients use MariaDB Connector/J"));
    rows.add(List.of("Leasehold", run.machine.leasehold()
        + " (defaults: poll 1 s, margin TTL/10, drift 0.01, rpcTimeout min(1 s, TTL/4))"));
    rows.add(loadRow());
    table(List.of("", ""), rows);
  }

  private void targets() {
    h2("Targets");
    p("Targets of issue 11, judged for Leasehold-JDBC.");
    List<List<String>> rows = new ArrayList<>();
    Stats lh = stats(r.handover.get(JdbcKind.LEASEHOLD_JDBC));
    if (lh != null) {
      rows.add(List.of("graceful handover p99 < 50 ms", "p99 " + ReportFormat.ms(lh.p99()) + " (n=" + lh.n() + ")",
          verdict(lh.p99() < 50)));
    }
    r.crash.forEach((ttl, m) -> {
      Stats s = stats(m.get(JdbcKind.LEASEHOLD_JDBC));
      if (s != null) {
        double bound = ttl + 1000;
        rows.add(List.of("crash failover p99 ≤ TTL + 1 s (TTL " + ReportFormat.ms(ttl) + ")",
            "p99 " + ReportFormat.ms(s.p99()) + " ≤ " + ReportFormat.ms(bound) + "? (n=" + s.n() + ")", verdict(s.p99() <= bound)));
      }
    });
    partitionTarget(rows, r.partition.get(JdbcKind.LEASEHOLD_JDBC));
    table(List.of("target", "measured (Leasehold-JDBC)", "met?"), rows);
  }

  private void handover(Path png) {
    h2("Graceful handover");
    p(run.options.candidates() + " candidate JVMs per contender, TTL " + ReportFormat.ms(r.options.handoverTtlMillis())
        + ". t0: just before the leader's JVM calls `resign()`; end: the next leader's elected callback "
        + "(System.nanoTime in both JVMs, one host). " + run.options.handoverWarmup() + " unrecorded warm-up "
        + "handovers first. Between handovers the bench waits " + JdbcScenarios.HANDOVER_PAUSE_MILLIS
        + "–" + (JdbcScenarios.HANDOVER_PAUSE_MILLIS + 100) + " ms (the etcd bench: 150–250 ms): a Leasehold "
        + "candidate that resigned finds the row released, has no holder's lock to wait on, and learns of "
        + "the next leader, which ends its resign hold-off, only at its next poll (1 s). At the etcd pace "
        + "every follower would still be sitting out its hold-off (up to the TTL) at the next resign.");
    handoverTable(r.handover);
    img("MariaDB graceful handover CDF", png);
  }

  private void crash(Path png) {
    h2("Crash failover");
    p(run.options.candidates() + " candidate JVMs; the leader's JVM is SIGKILLed at a random point (t0 just "
        + "before the kill) until the next leader's elected callback; a fresh candidate JVM starts right "
        + "after each kill. The kernel closes the dead JVM's sockets, so mariadbd ends its sessions (and "
        + "their named locks) at once. The `GET_LOCK` design does not use a TTL; it runs at each TTL only "
        + "to sit beside Leasehold.");
    crashTable(r.crash);
    img("MariaDB crash failover CDF", png);
  }

  private void idle() {
    h2("Server load while idle");
    p("N candidates of one contender in one JVM, each with its own sessions, TTL "
        + ReportFormat.ms(r.options.idleTtlMillis()) + "; after a leader is elected and start-up settled, the bench "
        + "reads `SHOW GLOBAL STATUS` before and after a " + run.options.idleWindowSeconds() + " s window. "
        + "Questions: statements sent by clients; Queries also counts statements inside stored programs "
        + "(none here). Each read of the counters opens a root session and counts too: the baseline "
        + "row, with no candidate running, shows that share.");
    List<List<String>> rows = new ArrayList<>();
    if (r.idleBaseline != null) {
      rows.add(idleRow("(no candidates)", "0", r.idleBaseline));
    }
    r.idle.forEach((k, m) -> m.forEach((n, x) -> rows.add(idleRow(k.label(), Integer.toString(n), x))));
    table(List.of("contender", "candidates", "Questions/s", "Queries/s", "SELECT/s", "UPDATE/s",
        "connections at the end"), rows);
  }

  private void method() {
    h2("How it was measured");
    md.append("- **Leasehold-JDBC** is `JdbcLeaderElector` with its defaults except the TTL (and "
        + "`createTable(true)`): a lease row is the truth, renewed every TTL/6 by a conditional UPDATE; "
        + "followers wait in `GET_LOCK` on the holder's lock only to be woken, and poll every second.\n");
    md.append("- **GET_LOCK every 2 s (scheduler design)**, `bench/.../contender/SessionLock.java` on "
        + "`PolledLockContender.java`: every "
        + "2 s each instance runs `SELECT GET_LOCK(name, 0)` on a connection it keeps; 1 means it leads, "
        + "an error ends the connection and the leadership; no deadline, no fencing. Choices the design "
        + "leaves open, made in its favour: a 5 s socket timeout (HikariCP's default validation timeout; the "
        + "driver's default is none, so a partitioned leader would hang and lead forever); the session's "
        + "`wait_timeout` set to Leasehold's (⌈2 × TTL⌉ s; the server default, 8 h, would leave the lock "
        + "held and no one leading for 8 h); `resign()` releases the lock and sits out one round.\n");
    md.append("- Why the `GET_LOCK` design overlaps under a partition: mariadbd ends the silent leader's session "
        + "`wait_timeout` after its last statement and frees the lock for the next 2 s round of a follower, "
        + "while the old leader learns nothing until its own next call times out (2 s + 5 s). The sign of "
        + "the window is set by two timeouts, one on the server and one in the driver, that nothing in the "
        + "design ties together. Leasehold's leader steps down at its local deadline, which no server "
        + "timer can beat: followers take only after their own observed wait of TTL × (1 + ρ).\n");
    md.append("- Times are `System.nanoTime()` (CLOCK_MONOTONIC, shared by every process on the host) taken in "
        + "the callback a user gets; the bench reads them from the candidates' stdout. Percentiles are "
        + "nearest-rank: every figure is a measured sample; with fewer than 100 samples p99 is the maximum.\n");
    md.append("- Contenders run one at a time on the same server; each scenario uses a fresh election name. "
        + "Raw samples: [`" + stem + "-samples.csv`](" + stem + "-samples.csv).\n\n");
  }

  @Override
  protected void samples(StringBuilder c) {
    r.handover.forEach((k, v) -> csvRows(c, "handover", k.label(), r.options.handoverTtlMillis(), v));
    r.crash.forEach((ttl, m) -> m.forEach((k, v) -> csvRows(c, "crash", k.label(), ttl, v)));
    partitionSamples(c, r.partition, r.options.partitionTtlMillis());
  }

  private static List<String> idleRow(String who, String n, MariaDbResults.Idle x) {
    return List.of(who, n, f1(x.questionsPerSec()), f1(x.queriesPerSec()), f1(x.selectsPerSec()),
        f1(x.updatesPerSec()), Integer.toString(x.connections()));
  }
}
