package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcContenderMain;
import dev.leasehold.bench.contender.JdbcKind;
import dev.leasehold.it.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * MariaDbBench runs the MariaDB phases against one private mariadbd it starts itself (durable
 * commits: {@code innodb_flush_log_at_trx_commit = 1}, which Leasehold requires by default), for
 * every JDBC contender, and collects the figures in {@link MariaDbResults}. The scenarios are
 * {@link Bench}'s: graceful handover, crash failover, a partition of the leader, idle cost.
 *
 * <p>Not thread-safe.
 */
final class MariaDbBench {
  /** PHASES are the names {@code --phases} takes for this bench; {@code mariadb} selects them all. */
  static final List<String> PHASES = List.of("mariadb-idle", "mariadb-handover", "mariadb-crash", "mariadb-partition");


  private final Bench.Options o;
  private final MariaDbResults.Options m;
  private final MariaDbResults r;
  private MariaDbServer db;
  private JdbcScenarios scenarios;

  MariaDbBench(Bench.Options options, MariaDbResults results) {
    this.o = options;
    this.m = results.options;
    this.r = results;
  }

  /** wanted tells whether {@code phases} names any MariaDB phase. */
  static boolean wanted(List<String> phases) {
    return phases.contains("mariadb") || phases.stream().anyMatch(PHASES::contains);
  }

  /** run starts mariadbd, runs the chosen phases and stops everything it started. */
  void run() throws Exception {
    Bench.say("starting mariadbd");
    try (MariaDbServer server =
        MariaDbServer.builder().name("bench").option("--innodb-flush-log-at-trx-commit=1").start()) {
      db = server;
      scenarios = new JdbcScenarios(o, server.rootUser(), server.rootPassword(), r.problems);
      r.serverVersion = server.sql("SELECT VERSION()").get(0).get(0);
      r.serverFlags = "innodb_flush_log_at_trx_commit = "
          + server.sql("SELECT @@innodb_flush_log_at_trx_commit").get(0).get(0) + ", max_connections = "
          + server.sql("SELECT @@max_connections").get(0).get(0);
      Bench.say("mariadbd up: " + server.jdbcUrl() + " (" + r.serverVersion + ")");
      JdbcScenarios.phase(o.phases(), "mariadb", "mariadb-idle", r.problems, this::idle);
      JdbcScenarios.phase(o.phases(), "mariadb", "mariadb-handover", r.problems, this::handover);
      JdbcScenarios.phase(o.phases(), "mariadb", "mariadb-crash", r.problems, this::crash);
      JdbcScenarios.phase(o.phases(), "mariadb", "mariadb-partition", r.problems, this::partition);
    }
  }

  // ---- idle cost ----

  private void idle() throws Exception {
    Status a = status();
    Thread.sleep(o.idleWindowSeconds() * 1000L);
    r.idleBaseline = a.rates(status());
    Bench.say(String.format("idle baseline: %.2f questions/s", r.idleBaseline.questionsPerSec()));
    scenarios.each(m.contenders(), k -> {
      Map<Integer, MariaDbResults.Idle> byCount = Collections.synchronizedMap(new TreeMap<>());
      r.idle.put(k, byCount);
      for (int n : m.idleCounts()) {
        try (Group g = new Group(o.logDir().resolve("mariadb-idle"))) {
          List<String> jvm = new ArrayList<>(o.childJvm());
          if (n > 20) {
            jvm.add("-Xmx1g");
          }
          Group.Child c = g.launch(k.name().toLowerCase() + "-idle-" + n, JdbcContenderMain.class.getName(), jvm,
              scenarios.args(k, db.jdbcUrl(), JdbcScenarios.key("idle", k), "idle", m.idleTtlMillis(), n));
          g.await(0, e -> e.is("READY"), Duration.ofSeconds(60));
          g.await(0, e -> e.is("ELECTED"), Duration.ofSeconds(60));
          Thread.sleep(o.idleSettleSeconds() * 1000L);
          int mark = g.mark();
          Status s1 = status();
          Thread.sleep(o.idleWindowSeconds() * 1000L);
          MariaDbResults.Idle rates = s1.rates(status());
          if (g.find(mark, e -> e.is("LOST") || e.is("ELECTED"), Duration.ZERO).isPresent()) {
            r.problems.add("idle " + k.label() + " x" + n + ": leadership changed during the window");
          }
          byCount.put(n, rates);
          Bench.say(String.format("idle %s x%d: %.1f questions/s (%d connections)", k.label(), n,
              rates.questionsPerSec(), rates.connections()));
          c.close(Duration.ofSeconds(15));
        }
      }
    });
  }

  // ---- graceful handover and crash failover ----

  private void handover() throws Exception {
    scenarios.each(m.contenders(), k -> r.handover.put(k,
        scenarios.handover(k, db.jdbcUrl(), m.handoverTtlMillis(), o.logDir().resolve("mariadb-handover"), null)));
  }

  private void crash() throws Exception {
    for (int ttl : m.crashTtlsMillis()) {
      Map<JdbcKind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
      r.crash.put(ttl, byKind);
      scenarios.each(m.contenders(), k -> byKind.put(k,
          scenarios.crash(k, db.jdbcUrl(), ttl, o.logDir().resolve("mariadb-crash-ttl" + ttl))));
    }
  }

  // ---- partition of the leader from mariadbd ----

  private void partition() throws Exception {
    scenarios.each(m.contenders(), k -> r.partition.put(k, scenarios.partition(k, db.port(),
        port -> "jdbc:mariadb://127.0.0.1:" + port + "/" + MariaDbServer.DATABASE, m.partitionTtlMillis(),
        m.partitionTrials(), o.logDir().resolve("mariadb-partition"))));
  }

  // ---- helpers ----

  /** Status is one read of the server's statement counters, with the local time it was taken. */
  private record Status(long nanos, Map<String, Long> counters) {
    long get(String name) {
      return counters.getOrDefault(name, 0L);
    }

    MariaDbResults.Idle rates(Status later) {
      double s = (later.nanos - nanos) / 1e9;
      return new MariaDbResults.Idle((later.get("Questions") - get("Questions")) / s,
          (later.get("Queries") - get("Queries")) / s, (later.get("Com_select") - get("Com_select")) / s,
          (later.get("Com_update") - get("Com_update")) / s, (int) later.get("Threads_connected"));
    }
  }

  private Status status() {
    long t = System.nanoTime();
    Map<String, Long> c = new LinkedHashMap<>();
    for (List<String> row : db.sql("SHOW GLOBAL STATUS WHERE Variable_name IN "
        + "('Questions', 'Queries', 'Com_select', 'Com_update', 'Threads_connected')")) {
      c.put(row.get(0), Long.parseLong(row.get(1)));
    }
    return new Status(t, c);
  }
}
