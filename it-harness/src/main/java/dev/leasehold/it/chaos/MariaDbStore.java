package dev.leasehold.it.chaos;

import dev.leasehold.it.mariadb.MariaDbServer;
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
public final class MariaDbStore extends SqlChaosStore {
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
    super(server, "mariadbd");
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
  List<List<String>> sql(String statement) {
    return server.sql(statement);
  }

  @Override
  String jdbcUrl(int port) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + MariaDbServer.DATABASE;
  }

  @Override
  String user() {
    return server.rootUser();
  }

  @Override
  String password() {
    return server.rootPassword();
  }

  @Override
  public String describe(ChaosConfig config) {
    String version = "?";
    try {
      version = server.sql("SELECT VERSION()").get(0).get(0);
    } catch (IllegalStateException ignored) {
      // Only for the summary line.
    }
    return "mariadbd " + version + ", innodb_flush_log_at_trx_commit 1, " + describeRpc(config);
  }

}
