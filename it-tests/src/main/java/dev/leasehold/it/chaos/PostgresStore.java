package dev.leasehold.it.chaos;

import dev.leasehold.it.postgres.PostgresServer;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgresStore is the chaos run's PostgreSQL: one private postgres with durable commits
 * ({@code fsync} and {@code synchronous_commit} on), which faults kill, pause and terminate
 * sessions on. The store's own record is {@link MariaDbStore}'s, in PostgreSQL's spelling: a
 * {@code chaos_log} table whose {@code rev} (a sequence) orders everything, a row per term begun
 * or ended written by a trigger on the lease table in the take's own transaction, and a row per
 * counter write in the workload's guarded transaction. The guard's {@code FOR SHARE} lock and a
 * take's row lock exclude each other, so a write's {@code rev} falls between the takes it was
 * serialized between.
 *
 * <p>Not thread-safe; the runner's thread only (the server itself is thread-safe).
 */
public final class PostgresStore implements ChaosStore {
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
    server.sql("INSERT INTO chaos_counter (name, n, writer, token, seq) VALUES (" + MariaDbStore.literal(counterKey)
        + ", 0, '', 0, 0)");
  }

  /** monitor starts a {@link CommitProbe} on a direct connection (not through any candidate's proxy). */
  @Override
  public AutoCloseable monitor(HistoryRecorder recorder, long thresholdNanos) {
    return new CommitProbe(server.jdbcUrl(), server.superuser(), server.superuserPassword(), recorder,
        thresholdNanos);
  }

  @Override
  public List<Integer> clientPorts() {
    return List.of(server.port());
  }

  @Override
  public List<String> endpoints(ClientProxies links) {
    return List.of();
  }

  @Override
  public List<String> candidateArgs(ChaosConfig config, ClientProxies links) {
    List<String> args = new ArrayList<>(List.of(
        "--backend=jdbc",
        "--jdbc-url=jdbc:postgresql://127.0.0.1:" + links.ports().get(0) + "/" + PostgresServer.DATABASE,
        "--jdbc-user=" + server.superuser(),
        "--jdbc-password=" + server.superuserPassword()));
    if (config.rpcTimeoutMillis() > 0) {
      args.add("--rpc-timeout-millis=" + config.rpcTimeoutMillis());
    }
    return args;
  }

  @Override
  public String unsteady() {
    if (!server.isRunning() || server.isPaused()) {
      return server + " not running";
    }
    try {
      server.sql("SELECT 1");
    } catch (IllegalStateException e) {
      return "postgres does not answer: " + e.getMessage();
    }
    return null;
  }

  @Override
  public void healAll() {
    try {
      if (server.isPaused()) {
        server.resume();
      } else if (!server.isRunning()) {
        server.start();
      }
    } catch (RuntimeException ignored) {
      // Best effort.
    }
  }

  @Override
  public StoreHistory read(String electionKey, String counterKey) {
    List<List<String>> log = server.sql("SELECT rev, kind, name, n, writer, token, seq FROM chaos_log WHERE name IN ("
        + MariaDbStore.literal(electionKey) + ", " + MariaDbStore.literal(counterKey) + ") ORDER BY rev");
    List<List<String>> counter = server.sql("SELECT n FROM chaos_counter WHERE name = "
        + MariaDbStore.literal(counterKey));
    long finalCounter = counter.isEmpty() ? 0 : Long.parseLong(counter.get(0).get(0));
    return MariaDbStore.history(log, electionKey, counterKey, finalCounter);
  }

  @Override
  public String describe(ChaosConfig config) {
    String version = "?";
    try {
      version = server.sql("SHOW server_version").get(0).get(0);
    } catch (IllegalStateException ignored) {
      // Only for the summary line.
    }
    return "postgres " + version + ", fsync and synchronous_commit on, candidate rpc timeout "
        + (config.rpcTimeoutMillis() > 0 ? config.rpcTimeoutMillis() + " ms" : "core's default (min(1 s, TTL/4))");
  }

  @Override
  public History.Params params(ChaosConfig config) {
    return new History.Params(config.ttlSeconds() * 1_000_000_000L, config.electionTimeoutMillis() * 1_000_000L, 0);
  }

  @Override
  public void close() {
    server.close();
  }
}
