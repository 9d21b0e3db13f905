package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import dev.leasehold.it.postgres.PgBouncer;
import dev.leasehold.it.postgres.PostgresServer;
import dev.leasehold.bench.contender.JdbcContenderMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.postgresql.util.DriverInfo;

/**
 * PostgresBench runs the PostgreSQL phases against one private postgres it starts itself (fsync and
 * synchronous_commit on: durable commits, as on MariaDB) with a PgBouncer in transaction pooling in front of it: the
 * floor ({@link PostgresFloor}), the idle cost, and the graceful handover, crash failover and stale-leader window
 * under a partition of every JDBC contender that runs on PostgreSQL (Leasehold's own among them), with
 * {@link JdbcScenarios}. Collects the figures in {@link PostgresResults}.
 *
 * <p>Not thread-safe.
 */
final class PostgresBench {
  /** PHASES are the names {@code --phases} takes for this bench; {@code postgres} selects them all. */
  static final List<String> PHASES =
      List.of("postgres-floor", "postgres-idle", "postgres-handover", "postgres-crash", "postgres-partition");

  private final Bench.Options o;
  private final PostgresResults.Options p;
  private final PostgresResults r;
  private PostgresServer db;
  private PgBouncer bouncer;
  private JdbcScenarios scenarios;

  PostgresBench(Bench.Options options, PostgresResults results) {
    this.o = options;
    this.p = results.options;
    this.r = results;
  }

  /** wanted tells whether {@code phases} names any PostgreSQL phase. */
  static boolean wanted(List<String> phases) {
    return phases.contains("postgres") || phases.stream().anyMatch(PHASES::contains);
  }

  /** run starts postgres and pgbouncer, runs the chosen phases and stops everything it started. */
  void run() throws Exception {
    Bench.say("starting postgres and pgbouncer");
    try (PostgresServer server = PostgresServer.builder().name("bench").start();
        PgBouncer pooled = PgBouncer.start(server)) {
      db = server;
      bouncer = pooled;
      scenarios = new JdbcScenarios(o, server.superuser(), server.superuserPassword(), r.problems);
      r.serverVersion = server.sql("SELECT version()").get(0).get(0);
      r.serverSettings = server.sql("SELECT string_agg(name || ' = ' || current_setting(name), ', ' ORDER BY name) "
          + "FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', "
          + "'max_connections', 'wal_level')").get(0).get(0);
      r.bouncerVersion = pooled.version();
      r.driverVersion = DriverInfo.DRIVER_VERSION;
      for (JdbcKind k : p.contenders()) {
        k.schema().forEach(server::sql);
      }
      Bench.say("postgres up: " + server.jdbcUrl() + ", pgbouncer " + pooled.jdbcUrl() + " (" + r.serverVersion
          + ")");
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-floor", r.problems, this::floor);
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-idle", r.problems, this::idle);
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-handover", r.problems, this::handover);
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-crash", r.problems, this::crash);
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-partition", r.problems, this::partition);
    }
  }

  private void floor() throws Exception {
    r.loadBeforeFloor = MachineInfo.loadAverage();
    r.floor.putAll(new PostgresFloor(db, bouncer, p.handoverTtlMillis()).run(p.floorSamples(), p.floorWarmup()));
    r.loadAfterFloor = MachineInfo.loadAverage();
    r.floor.forEach((name, samples) -> {
      Stats s = Stats.of(samples);
      Bench.say(String.format("floor %s: n=%d p50 %.2f ms p99 %.2f ms", name, s.n(), s.p50(), s.p99()));
    });
  }

  private void handover() throws Exception {
    scenarios.each(p.contenders(), k -> {
      HandoverHops hops = null;
      if (o.handoverTrace() && k == JdbcKind.LEASEHOLD_JDBC) {
        hops = HandoverHops.sql();
        r.handoverHops = hops;
      }
      r.handover.put(k, scenarios.handover(k, db.jdbcUrl(), p.handoverTtlMillis(),
          o.logDir().resolve("postgres-handover"), hops));
    });
  }

  private void crash() throws Exception {
    for (int ttl : p.crashTtlsMillis()) {
      Map<JdbcKind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
      r.crash.put(ttl, byKind);
      scenarios.each(p.contenders(), k -> byKind.put(k,
          scenarios.crash(k, db.jdbcUrl(), ttl, o.logDir().resolve("postgres-crash-ttl" + ttl))));
    }
  }

  private void partition() throws Exception {
    scenarios.each(p.contenders(), k -> r.partition.put(k, scenarios.partition(k, db.port(),
        port -> "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresServer.DATABASE, p.partitionTtlMillis(),
        p.partitionTrials(), o.logDir().resolve("postgres-partition"))));
  }

  // ---- idle cost: N candidates of one contender in one JVM, transactions per second at the server ----

  private void idle() throws Exception {
    Counters a = counters();
    Thread.sleep(o.idleWindowSeconds() * 1000L);
    r.idleBaseline = a.rates(counters());
    Bench.say(String.format("idle baseline: %.2f transactions/s", r.idleBaseline.transactionsPerSec()));
    scenarios.each(p.contenders(), k -> {
      Map<Integer, PostgresResults.Idle> byCount = Collections.synchronizedMap(new TreeMap<>());
      r.idle.put(k, byCount);
      for (int n : p.idleCounts()) {
        try (Group g = new Group(o.logDir().resolve("postgres-idle"))) {
          List<String> jvm = new ArrayList<>(o.childJvm());
          if (n > 20) {
            jvm.add("-Xmx1g");
          }
          Group.Child c = g.launch(k.name().toLowerCase() + "-idle-" + n, JdbcContenderMain.class.getName(), jvm,
              scenarios.args(k, db.jdbcUrl(), JdbcScenarios.key("idle", k), "idle", p.idleTtlMillis(), n));
          g.await(0, e -> e.is("READY"), Duration.ofSeconds(60));
          g.await(0, e -> e.is("ELECTED"), Duration.ofSeconds(60));
          Thread.sleep(o.idleSettleSeconds() * 1000L);
          int mark = g.mark();
          Counters s1 = counters();
          Thread.sleep(o.idleWindowSeconds() * 1000L);
          PostgresResults.Idle rates = s1.rates(counters());
          if (g.find(mark, e -> e.is("LOST") || e.is("ELECTED"), Duration.ZERO).isPresent()) {
            r.problems.add("idle " + k.label() + " x" + n + ": leadership changed during the window");
          }
          byCount.put(n, rates);
          Bench.say(String.format("idle %s x%d: %.1f transactions/s (%d connections)", k.label(), n,
              rates.transactionsPerSec(), rates.connections()));
          c.close(Duration.ofSeconds(15));
        }
      }
    });
  }

  /** Counters is one read of the database's transaction counter, with the local time it was taken. */
  private record Counters(long nanos, long transactions, int connections) {
    PostgresResults.Idle rates(Counters later) {
      return new PostgresResults.Idle((later.transactions - transactions) / ((later.nanos - nanos) / 1e9),
          later.connections);
    }
  }

  private Counters counters() {
    long t = System.nanoTime();
    // Backends flush their statistics at most once a second and when idle: the window is many seconds long.
    List<String> row = db.sql("SELECT xact_commit + xact_rollback, numbackends FROM pg_stat_database"
        + " WHERE datname = current_database()").get(0);
    return new Counters(t, Long.parseLong(row.get(0)), Integer.parseInt(row.get(1)));
  }
}
