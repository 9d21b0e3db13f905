package dev.leasehold.it.chaos;

import dev.leasehold.it.postgres.PgBouncer;
import dev.leasehold.it.postgres.PostgresServer;
import java.util.List;

/**
 * PostgresStore is the chaos run's PostgreSQL: one private postgres with durable commits
 * ({@code fsync} and {@code synchronous_commit} on), which faults kill, pause and terminate
 * sessions on. The store's own record is {@link SqlChaosStore}'s, in PostgreSQL's spelling: a
 * {@code chaos_log} table whose {@code rev} (a sequence) orders everything, a row per term begun
 * or ended written by a trigger on the lease table in the take's own transaction, and a row per
 * counter write in the workload's guarded transaction. The guard's {@code FOR SHARE} lock and a
 * take's row lock exclude each other, so a write's {@code rev} falls between the takes it was
 * serialized between.
 *
 * <p>{@link #throughPgBouncer()} puts one transaction-mode {@link PgBouncer} between the
 * candidates' proxies and postgres: the electors detect the pooler and poll, and the counter
 * workload's transactions go through it too. Faults may then kill and pause PgBouncer as well;
 * the health check asks postgres through it, and finds no advisory lock on postgres, since an
 * elector that detected the pooler takes none.
 *
 * <p>Not thread-safe; the runner's thread only (the server itself is thread-safe).
 */
public final class PostgresStore extends SqlChaosStore {
  private static final String LEASE_DDL = "CREATE TABLE IF NOT EXISTS leasehold_lease ("
      + " name VARCHAR(128) COLLATE \"C\" NOT NULL PRIMARY KEY, holder VARCHAR(32) COLLATE \"C\" NOT NULL,"
      + " candidate VARCHAR(255) NOT NULL, epoch BIGINT NOT NULL, version BIGINT NOT NULL, ttl_us BIGINT NOT NULL,"
      + " expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL)";

  private static final List<String> SETUP = List.of(
      "CREATE TABLE IF NOT EXISTS chaos_log (rev BIGSERIAL PRIMARY KEY, kind CHAR(1) NOT NULL,"
          + " name VARCHAR(128) NOT NULL, n BIGINT, writer VARCHAR(255), token BIGINT, seq BIGINT, holder VARCHAR(32))",
      "CREATE TABLE IF NOT EXISTS chaos_counter (name VARCHAR(128) NOT NULL PRIMARY KEY, n BIGINT NOT NULL,"
          + " writer VARCHAR(255) NOT NULL, token BIGINT NOT NULL, seq BIGINT NOT NULL)",
      "CREATE OR REPLACE FUNCTION chaos_lease_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " IF TG_OP = 'DELETE' THEN"
          + "   INSERT INTO chaos_log (kind, name, writer, token, holder)"
          + "   VALUES ('E', OLD.name, OLD.candidate, OLD.epoch, OLD.holder); RETURN OLD;"
          + " END IF;"
          + " IF TG_OP = 'INSERT' OR NEW.epoch <> OLD.epoch OR NEW.holder <> OLD.holder THEN"
          + "   INSERT INTO chaos_log (kind, name, writer, token, holder) VALUES"
          + "   (CASE WHEN NEW.holder = '' THEN 'E' ELSE 'T' END, NEW.name, NEW.candidate, NEW.epoch, NEW.holder);"
          + " END IF;"
          + " RETURN NEW; END $$",
      "CREATE TRIGGER chaos_lease_log AFTER INSERT OR UPDATE OR DELETE ON leasehold_lease"
          + " FOR EACH ROW EXECUTE FUNCTION chaos_lease_log()",
      "CREATE TABLE IF NOT EXISTS chaos_probe (id INT NOT NULL PRIMARY KEY, n BIGINT NOT NULL)",
      "INSERT INTO chaos_probe (id, n) VALUES (1, 0)");

  private final PostgresServer server;
  // Null when the candidates reach postgres directly.
  private final PgBouncer bouncer;

  private PostgresStore(PostgresServer server, PgBouncer bouncer) {
    super(server, "postgres");
    this.server = server;
    this.bouncer = bouncer;
  }

  /**
   * start initialises and launches a private postgres (the launcher's settings: durable commits)
   * that the candidates reach directly.
   *
   * @return the store
   */
  public static PostgresStore start() {
    return new PostgresStore(PostgresServer.builder().name("chaos").start(), null);
  }

  /**
   * throughPgBouncer launches a private postgres, as {@link #start()} does, and a transaction-mode
   * PgBouncer in front of it that the candidates reach postgres through.
   *
   * @return the store
   */
  public static PostgresStore throughPgBouncer() {
    PostgresServer server = PostgresServer.builder().name("chaos").start();
    try {
      return new PostgresStore(server, PgBouncer.start(server, PgBouncer.PoolMode.TRANSACTION));
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /**
   * server is the postgres.
   *
   * @return the server
   */
  public PostgresServer server() {
    return server;
  }

  /**
   * bouncer is the PgBouncer between the candidates and postgres.
   *
   * @return the PgBouncer
   * @throws IllegalStateException when the candidates reach postgres directly
   */
  public PgBouncer bouncer() {
    if (bouncer == null) {
      throw new IllegalStateException("the candidates reach postgres directly: no PgBouncer"
          + " (PostgresStore.throughPgBouncer makes one)");
    }
    return bouncer;
  }

  /** clientPorts is PgBouncer's port when the candidates go through it, else postgres's. */
  @Override
  public List<Integer> clientPorts() {
    return bouncer == null ? super.clientPorts() : List.of(bouncer.port());
  }

  /**
   * unsteady adds to {@link SqlChaosStore#unsteady()}, when there is a PgBouncer: it runs, and
   * postgres answers through it. It throws IllegalStateException, failing the run, when postgres
   * has an advisory lock granted: an elector that detected the pooler takes none, so one holds a
   * session lock on a pooled server connection (its probe missed the pooler), and the run no
   * longer tests what it says. Such an elector holds its lock for its whole term, so the checks
   * before and after every fault see it whenever it leads.
   */
  @Override
  public String unsteady() {
    String why = super.unsteady();
    if (why != null || bouncer == null) {
      return why;
    }
    if (!bouncer.isRunning() || bouncer.isPaused()) {
      return bouncer + " not running";
    }
    List<List<String>> locks;
    try {
      locks = bouncer.sql("SELECT pid, classid, objid FROM pg_locks WHERE locktype = 'advisory' AND granted");
    } catch (IllegalStateException e) {
      return "pgbouncer does not answer: " + e.getMessage();
    }
    if (!locks.isEmpty()) {
      throw new IllegalStateException("advisory locks (pid, classid, objid) granted on postgres behind PgBouncer:"
          + " an elector missed the pooler and took a session lock on a pooled server connection: " + locks);
    }
    return null;
  }

  @Override
  public void healAll() {
    super.healAll();
    if (bouncer != null) {
      heal(bouncer);
    }
  }

  @Override
  public void prepare(String electionKey, String counterKey) {
    server.sql(LEASE_DDL);
    SETUP.forEach(server::sql);
    server.sql("INSERT INTO chaos_counter (name, n, writer, token, seq) VALUES (" + literal(counterKey)
        + ", 0, '', 0, 0)");
  }

  /** monitor starts a {@link CommitProbe} on a direct connection (not through any candidate's proxy). */
  @Override
  public AutoCloseable monitor(HistoryRecorder recorder, long thresholdNanos) {
    return new CommitProbe(server.jdbcUrl(), server.superuser(), server.superuserPassword(), recorder,
        thresholdNanos);
  }

  @Override
  List<List<String>> sql(String statement) {
    return server.sql(statement);
  }

  @Override
  String jdbcUrl(int port) {
    // Through PgBouncer's transaction pooling a server-side prepared statement would not outlive
    // its transaction (see PgBouncer); the workload's connection needs this, the elector sets it.
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresServer.DATABASE
        + (bouncer == null ? "" : "?prepareThreshold=0");
  }

  @Override
  String user() {
    return server.superuser();
  }

  @Override
  String password() {
    return server.superuserPassword();
  }

  @Override
  public String describe(ChaosConfig config) {
    String version = "?";
    try {
      version = server.sql("SHOW server_version").get(0).get(0);
    } catch (IllegalStateException ignored) {
      // Only for the summary line.
    }
    return "postgres " + version + ", fsync and synchronous_commit on, candidates "
        + (bouncer == null ? "direct" : "through " + bouncer.version() + " (transaction pooling)") + ", "
        + describeRpc(config);
  }

  @Override
  public void close() {
    if (bouncer != null) {
      bouncer.close();
    }
    super.close();
  }

}
