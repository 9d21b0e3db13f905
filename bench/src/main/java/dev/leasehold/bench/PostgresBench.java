package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcKind;
import dev.leasehold.it.postgres.PgBouncer;
import dev.leasehold.it.postgres.PostgresServer;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.postgresql.util.DriverInfo;

/**
 * PostgresBench runs the PostgreSQL phases against one private postgres it starts itself (fsync and
 * synchronous_commit on: durable commits, as on MariaDB) with a PgBouncer in transaction pooling in front of it: the
 * floor ({@link PostgresFloor}), and the graceful handover and crash failover of every JDBC contender that runs on
 * PostgreSQL, with {@link JdbcScenarios}. Leasehold's own contender joins through {@link JdbcKind} once the
 * PostgreSQL dialect exists. Collects the figures in {@link PostgresResults}.
 *
 * <p>Not thread-safe.
 */
final class PostgresBench {
  /** PHASES are the names {@code --phases} takes for this bench; {@code postgres} selects them all. */
  static final List<String> PHASES = List.of("postgres-floor", "postgres-handover", "postgres-crash");

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
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-handover", r.problems, this::handover);
      JdbcScenarios.phase(o.phases(), "postgres", "postgres-crash", r.problems, this::crash);
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
    scenarios.each(p.contenders(), k -> r.handover.put(k,
        scenarios.handover(k, db.jdbcUrl(), p.handoverTtlMillis(), o.logDir().resolve("postgres-handover"))));
  }

  private void crash() throws Exception {
    for (int ttl : p.crashTtlsMillis()) {
      Map<JdbcKind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
      r.crash.put(ttl, byKind);
      scenarios.each(p.contenders(), k -> byKind.put(k,
          scenarios.crash(k, db.jdbcUrl(), ttl, o.logDir().resolve("postgres-crash-ttl" + ttl))));
    }
  }
}
