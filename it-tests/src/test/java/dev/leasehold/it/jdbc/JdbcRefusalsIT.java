package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.net.ServerSocket;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.mariadb.jdbc.MariaDbPoolDataSource;

/**
 * What the elector refuses, each with a clear message in the log, FOLLOWER, STORE_UNAVAILABLE,
 * never a term, and nothing held: wrong credentials, an unreachable or read-only server, relaxed
 * durability without the opt-in, a missing or non-InnoDB table, a pooled DataSource, and a Galera
 * node (a one-node cluster of its own, started by the test).
 */
@ExtendWith(MariaDbExtension.class)
class JdbcRefusalsIT {
  private Refusals refusals;

  @BeforeEach
  void captureTheStoresLog() {
    refusals = new Refusals();
  }

  @AfterEach
  void stopCapturing() {
    refusals.close();
  }

  @Test
  void wrongCredentials(MariaDbServer db) {
    String message = refused(db, "creds", b -> b.jdbcUrl(db.jdbcUrl(), db.rootUser(), "wrong"));
    assertTrue(message.contains("access denied: wrong user or password"), message);
  }

  @Test
  void anUnreachableServer(MariaDbServer db) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String message = refused(db, "unreachable",
        b -> b.jdbcUrl("jdbc:mariadb://127.0.0.1:" + port + "/leasehold", "root", "x"));
    assertTrue(message.contains("cannot reach the server"), message);
  }

  @Test
  void aReadOnlyServerUntilItIsWritableAgain(MariaDbServer db) {
    db.sql("SET GLOBAL read_only = 1");
    try (JdbcGroup g = new JdbcGroup(db, "readonly")) {
      LeaderElector e = g.add("ro");
      e.start();
      String message = awaitRefusal(g, e);
      assertTrue(message.contains("refusing a read-only server (@@read_only = 1"), message);
      db.sql("SET GLOBAL read_only = 0");
      g.awaitLeader();
      assertTrue(g.log(e).has(Cause.STORE_RECOVERED));
      g.assertPaired();
    } finally {
      db.sql("SET GLOBAL read_only = 0");
    }
  }

  @Test
  void relaxedDurabilityWithoutTheOptIn(MariaDbServer db) {
    String message = refused(db, "durability", b -> b.allowRelaxedDurability(false));
    assertTrue(message.contains("refusing innodb_flush_log_at_trx_commit = 2"), message);
    assertTrue(message.contains("allowRelaxedDurability(true)"), message);
  }

  @Test
  void aMissingTableIsReportedWithItsDdl(MariaDbServer db) {
    String message = refused(db, "missing", b -> b.createTable(false).table("no_such_table"));
    assertTrue(message.contains("table no_such_table does not exist in database leasehold"), message);
    assertTrue(message.contains("CREATE TABLE IF NOT EXISTS `no_such_table` ("), message);
  }

  @Test
  void aTableThatIsNotInnoDb(MariaDbServer db) {
    db.sql("CREATE TABLE myisam_lease (name VARCHAR(128) PRIMARY KEY, holder VARCHAR(32), candidate VARCHAR(255),"
        + " epoch BIGINT UNSIGNED, version BIGINT UNSIGNED, ttl_us BIGINT UNSIGNED, expires_at DATETIME(6))"
        + " ENGINE = MyISAM");
    String message = refused(db, "myisam", b -> b.table("myisam_lease"));
    assertTrue(message.contains("its engine is MyISAM, not InnoDB"), message);
  }

  @Test
  void aPooledDataSourceIsNeverTheTermSession(MariaDbServer db) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.rootUser());
    config.setPassword(db.rootPassword());
    config.setMaximumPoolSize(2);
    try (HikariDataSource hikari = new HikariDataSource(config);
        MariaDbPoolDataSource driverPool = new MariaDbPoolDataSource(
            db.jdbcUrl() + "?user=root&password=" + db.rootPassword() + "&maxPoolSize=2")) {
      for (javax.sql.DataSource pool : List.of(hikari, driverPool)) {
        String message = refused(db, "pool", b -> b.jdbcUrl(null, null, null).dataSource(pool));
        assertTrue(message.contains("dataSource is a connection pool"), message);
        refusals.clear();
      }
    }
  }

  @Test
  void aGaleraNodeEvenOfAOneNodeCluster() {
    try (MariaDbServer galera = MariaDbServer.builder().name("galera").galera().start()) {
      // A real Galera node, synced and accepting writes, not a server that merely names the variable.
      assertEquals(List.of(List.of("wsrep_on", "ON")), galera.sql("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'"));
      assertEquals(List.of(List.of("wsrep_cluster_size", "1")), galera.sql("SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'"));
      assertEquals(List.of(List.of("wsrep_ready", "ON")), galera.sql("SHOW GLOBAL STATUS LIKE 'wsrep_ready'"));
      String message = refused(galera, "galera", b -> {});
      assertTrue(message.contains("refusing Galera (wsrep_on = ON on 10."), message);
      assertTrue(message.contains("named locks are node-local there"), message);
      // Nothing behind: refused before its table was created, and no session of the elector left open.
      assertEquals(List.of(), galera.sql("SELECT TABLE_NAME FROM information_schema.TABLES"
          + " WHERE TABLE_SCHEMA = 'leasehold'"));
      await().atMost(SOON).until(() -> galera.sql("SELECT ID FROM information_schema.PROCESSLIST"
          + " WHERE USER = 'root' AND ID <> CONNECTION_ID()").isEmpty());
    }
  }

  /** refused starts one elector configured by {@code tweak} and returns the reason it logged. */
  private String refused(MariaDbServer db, String test, Consumer<JdbcLeaderElector.Builder> tweak) {
    try (JdbcGroup g = new JdbcGroup(db, test)) {
      return refusals.refused(g, tweak, () -> db.sql("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA ="
          + " 'leasehold' AND TABLE_NAME = 'leasehold_lease'").isEmpty() ? 0
          : Refusals.count(db.sql("SELECT COUNT(*) FROM leasehold_lease WHERE name = '" + g.election + "'")));
    }
  }

  private String awaitRefusal(JdbcGroup g, LeaderElector e) {
    return refusals.awaitRefusal(g, e);
  }
}
