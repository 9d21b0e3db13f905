package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.StoreWrite;
import dev.leasehold.it.mariadb.MariaDbServer;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDbStore is the chaos run's MariaDB: one private mariadbd with durable commits
 * ({@code innodb_flush_log_at_trx_commit = 1}, what the elector asks of a production server),
 * which faults kill, pause and KILL sessions on.
 *
 * <p>The store's own record: a log table, {@code chaos_log}, whose AUTO_INCREMENT {@code rev}
 * orders everything. Triggers on the lease table add a row whenever a term begins (a take:
 * the epoch or the holder changes to a new one) or ends (a release, a deletion), in the take's
 * own transaction; the candidates' counter workload adds one per counter write, in its guarded
 * transaction. The guard's shared lock on the lease row and a take's exclusive lock exclude
 * each other, so a write's {@code rev} falls between the takes it was serialized between: the
 * term alive at a write's {@code rev} is the one it committed under. Only the harness writes
 * the triggers; the candidates run the library unchanged. A {@link CommitProbe} measures how
 * long the server takes to commit, for the checker's stall column.
 *
 * <p>Not thread-safe; the runner's thread only (the server itself is thread-safe).
 */
public final class MariaDbStore implements ChaosStore {
  /** LEASE_DDL is PROTOCOL.md §10's table, created here so that the triggers exist before the first take. */
  static final String LEASE_DDL = "CREATE TABLE IF NOT EXISTS leasehold_lease ("
      + " name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
      + " holder VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
      + " candidate VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,"
      + " epoch BIGINT UNSIGNED NOT NULL, version BIGINT UNSIGNED NOT NULL, ttl_us BIGINT UNSIGNED NOT NULL,"
      + " expires_at DATETIME(6) NOT NULL, PRIMARY KEY (name)) ENGINE = InnoDB";

  private static final String LOG_DDL = "CREATE TABLE IF NOT EXISTS chaos_log ("
      + " rev BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
      + " kind CHAR(1) NOT NULL," // W: counter write; T: a term began; E: a term ended
      + " name VARCHAR(128) NOT NULL, n BIGINT, writer VARCHAR(255), token BIGINT, seq BIGINT, holder VARCHAR(32)"
      + ") ENGINE = InnoDB";

  private static final String COUNTER_DDL = "CREATE TABLE IF NOT EXISTS chaos_counter ("
      + " name VARCHAR(128) NOT NULL PRIMARY KEY, n BIGINT NOT NULL, writer VARCHAR(255) NOT NULL,"
      + " token BIGINT NOT NULL, seq BIGINT NOT NULL) ENGINE = InnoDB";

  private static final List<String> TRIGGERS = List.of(
      "CREATE TRIGGER chaos_lease_insert AFTER INSERT ON leasehold_lease FOR EACH ROW"
          + " INSERT INTO chaos_log (kind, name, writer, token, holder)"
          + " VALUES (IF(NEW.holder = '', 'E', 'T'), NEW.name, NEW.candidate, NEW.epoch, NEW.holder)",
      "CREATE TRIGGER chaos_lease_update AFTER UPDATE ON leasehold_lease FOR EACH ROW"
          + " IF NEW.epoch <> OLD.epoch OR NEW.holder <> OLD.holder THEN"
          + " INSERT INTO chaos_log (kind, name, writer, token, holder)"
          + " VALUES (IF(NEW.holder = '', 'E', 'T'), NEW.name, NEW.candidate, NEW.epoch, NEW.holder); END IF",
      "CREATE TRIGGER chaos_lease_delete AFTER DELETE ON leasehold_lease FOR EACH ROW"
          + " INSERT INTO chaos_log (kind, name, writer, token, holder)"
          + " VALUES ('E', OLD.name, OLD.candidate, OLD.epoch, OLD.holder)");

  private final MariaDbServer server;

  private MariaDbStore(MariaDbServer server) {
    this.server = server;
  }

  /** start initialises and launches a private mariadbd with durable commits. */
  public static MariaDbStore start() {
    return new MariaDbStore(MariaDbServer.builder().name("chaos")
        .option("--innodb-flush-log-at-trx-commit=1").start());
  }

  /** server is the mariadbd. */
  public MariaDbServer server() {
    return server;
  }

  @Override
  public void prepare(String electionKey, String counterKey) {
    server.sql(LEASE_DDL);
    server.sql(LOG_DDL);
    server.sql(COUNTER_DDL);
    TRIGGERS.forEach(server::sql);
    server.sql("CREATE TABLE IF NOT EXISTS chaos_probe (id INT NOT NULL PRIMARY KEY, n BIGINT NOT NULL) ENGINE = InnoDB");
    server.sql("INSERT INTO chaos_probe (id, n) VALUES (1, 0)");
    server.sql("INSERT INTO chaos_counter (name, n, writer, token, seq) VALUES (" + literal(counterKey)
        + ", 0, '', 0, 0)");
  }

  /** monitor starts a {@link CommitProbe} on a direct connection (not through any candidate's proxy). */
  @Override
  public AutoCloseable monitor(HistoryRecorder recorder, long thresholdNanos) {
    return new CommitProbe(server.jdbcUrl(), server.rootUser(), server.rootPassword(), recorder, thresholdNanos);
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
        "--jdbc-url=jdbc:mariadb://127.0.0.1:" + links.ports().get(0) + "/" + MariaDbServer.DATABASE,
        "--jdbc-user=" + server.rootUser(),
        "--jdbc-password=" + server.rootPassword()));
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
      return "mariadbd does not answer: " + e.getMessage();
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
        + literal(electionKey) + ", " + literal(counterKey) + ") ORDER BY rev");
    List<List<String>> counter = server.sql("SELECT n FROM chaos_counter WHERE name = " + literal(counterKey));
    long finalCounter = counter.isEmpty() ? 0 : Long.parseLong(counter.get(0).get(0));
    return history(log, electionKey, counterKey, finalCounter);
  }

  /**
   * history turns {@code chaos_log} rows ({@code rev, kind, name, n, writer, token, seq}, in
   * {@code rev} order) into the store's record: every {@code W} row of the counter is a write;
   * every {@code T} row of the election starts a term (ending the one before, if no {@code E}
   * did), every {@code E} row ends the open term; a term still open at the end lasts for ever.
   */
  static StoreHistory history(List<List<String>> log, String electionKey, String counterKey, long finalCounter) {
    List<StoreWrite> writes = new ArrayList<>();
    List<Incarnation> incarnations = new ArrayList<>();
    long openRev = -1;
    long openToken = 0;
    String openHolder = null;
    for (List<String> r : log) {
      long rev = Long.parseLong(r.get(0));
      String kind = r.get(1);
      String name = r.get(2);
      if (kind.equals("W") && name.equals(counterKey)) {
        writes.add(new StoreWrite(rev, Long.parseLong(r.get(3)), r.get(4), Long.parseLong(r.get(5)),
            Long.parseLong(r.get(6))));
      } else if (name.equals(electionKey) && (kind.equals("T") || kind.equals("E"))) {
        if (openRev >= 0) {
          incarnations.add(new Incarnation(openRev, rev, openHolder, openToken));
          openRev = -1;
        }
        if (kind.equals("T")) {
          openRev = rev;
          openToken = Long.parseLong(r.get(5));
          openHolder = r.get(4);
        }
      }
    }
    if (openRev >= 0) {
      incarnations.add(new Incarnation(openRev, Long.MAX_VALUE, openHolder, openToken));
    }
    return new StoreHistory(writes, incarnations, finalCounter);
  }

  @Override
  public String describe(ChaosConfig config) {
    String version = "?";
    try {
      version = server.sql("SELECT VERSION()").get(0).get(0);
    } catch (IllegalStateException ignored) {
      // Only for the summary line.
    }
    return "mariadbd " + version + ", innodb_flush_log_at_trx_commit 1, candidate rpc timeout "
        + (config.rpcTimeoutMillis() > 0 ? config.rpcTimeoutMillis() + " ms" : "core's default (min(1 s, TTL/4))");
  }

  @Override
  public History.Params params(ChaosConfig config) {
    // No leader election inside the store to wait for: check 5 applies at every TTL.
    return new History.Params(config.ttlSeconds() * 1_000_000_000L, config.electionTimeoutMillis() * 1_000_000L, 0);
  }

  /** literal quotes a harness-made name (letters, digits, '/', '-', '.') as an SQL string. */
  static String literal(String value) {
    if (!value.matches("[A-Za-z0-9._/-]*")) {
      throw new IllegalArgumentException("value must match [A-Za-z0-9._/-]*, but was \"" + value + "\"");
    }
    return "'" + value + "'";
  }

  @Override
  public void close() {
    server.close();
  }
}
