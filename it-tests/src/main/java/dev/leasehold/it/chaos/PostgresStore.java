package dev.leasehold.it.chaos;

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

  private PostgresStore(PostgresServer server) {
    super(server, "postgres");
    this.server = server;
  }

  /** start initialises and launches a private postgres (the launcher's settings: durable commits). */
  public static PostgresStore start() {
    return new PostgresStore(PostgresServer.builder().name("chaos").start());
  }

  /** server is the postgres. */
  public PostgresServer server() {
    return server;
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
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresServer.DATABASE;
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
    return "postgres " + version + ", fsync and synchronous_commit on, " + describeRpc(config);
  }

}
