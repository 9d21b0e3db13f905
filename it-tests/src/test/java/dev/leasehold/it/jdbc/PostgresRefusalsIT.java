package dev.leasehold.it.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.postgres.PostgresReplica;
import dev.leasehold.it.postgres.PostgresServer;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgresRefusalsIT gives the elector what it must refuse on PostgreSQL 15: wrong credentials,
 * an unreachable server, a missing table, a read-only user, a read-only session, relaxed
 * durability, an unlogged table, a hot standby (a real streaming replica) and a bad TTL. Each is
 * one clear reason naming the cause, logged once; never a leader, nothing written.
 */
class PostgresRefusalsIT {
  private static PostgresServer db;
  private Refusals refusals;

  @BeforeAll
  static void start() {
    db = PostgresServer.builder().name("PostgresRefusalsIT").start();
    db.sql("CREATE TABLE leasehold_lease (name VARCHAR(128) PRIMARY KEY, holder VARCHAR(32) NOT NULL,"
        + " candidate VARCHAR(255) NOT NULL, epoch BIGINT NOT NULL, version BIGINT NOT NULL, ttl_us BIGINT NOT NULL,"
        + " expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL)");
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @BeforeEach
  void captureTheStoresLog() {
    refusals = new Refusals();
  }

  @AfterEach
  void stopCapturing() {
    refusals.close();
  }

  @Test
  void wrongCredentials() {
    String message = refused("creds", b -> b.jdbcUrl(db.jdbcUrl(), db.superuser(), "wrong"));
    assertTrue(message.contains("access denied: wrong user or password"), message);
  }

  @Test
  void anUnreachableServer() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String message = refused("unreachable", b -> b.jdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/leasehold",
        "postgres", "x"));
    assertTrue(message.contains("cannot reach the server"), message);
  }

  @Test
  void aMissingTableIsReportedWithItsDdl() {
    String message = refused("missing", b -> b.createTable(false).table("no_such_table"));
    assertTrue(message.contains("table no_such_table does not exist in schema public"), message);
    assertTrue(message.contains("CREATE TABLE IF NOT EXISTS \"no_such_table\" ("), message);
    assertTrue(message.contains("clock_timestamp") || message.contains("TIMESTAMP(6) WITH TIME ZONE"), message);
  }

  @Test
  void aReadOnlyUserIsToldWhichGrantIsMissing() {
    db.createReadOnlyRole("reader", "reader-pw");
    String message = refused("reader", b -> b.jdbcUrl(db.jdbcUrl(), "reader", "reader-pw"));
    assertTrue(message.contains("user reader may not read, insert and update table public.leasehold_lease"), message);
    assertTrue(message.contains("GRANT SELECT, INSERT, UPDATE ON \"leasehold_lease\" TO reader"), message);
  }

  @Test
  void aReadOnlySessionAndRelaxedDurabilityWithoutTheOptIn() {
    db.createRole("ro_session", "ro-pw", "SELECT, INSERT, UPDATE ON leasehold_lease");
    db.sql("ALTER ROLE ro_session SET default_transaction_read_only = on");
    String readOnly = refused("rosession", b -> b.jdbcUrl(db.jdbcUrl(), "ro_session", "ro-pw"));
    assertTrue(readOnly.contains("refusing a read-only session (transaction_read_only = on for user ro_session"),
        readOnly);
    refusals.clear();
    db.createRole("async", "async-pw", "SELECT, INSERT, UPDATE ON leasehold_lease");
    db.sql("ALTER ROLE async SET synchronous_commit = off");
    String relaxed = refused("async", b -> b.jdbcUrl(db.jdbcUrl(), "async", "async-pw").allowRelaxedDurability(false));
    assertTrue(relaxed.contains("refusing synchronous_commit = off"), relaxed);
    assertTrue(relaxed.contains("allowRelaxedDurability(true)"), relaxed);
  }

  @Test
  void anUnloggedTable() {
    db.sql("CREATE UNLOGGED TABLE unlogged_lease (LIKE leasehold_lease INCLUDING ALL)");
    String message = refused("unlogged", b -> b.table("unlogged_lease"));
    assertTrue(message.contains("it is UNLOGGED, and a server crash empties it"), message);
  }

  @Test
  void aHotStandbyIsRefusedAndNothingIsWrittenThere() {
    try (PostgresReplica standby = PostgresReplica.of(db)) {
      assertTrue(standby.isInRecovery(), "a real streaming replica, in recovery");
      String message;
      try (JdbcGroup g = new JdbcGroup(standby.jdbcUrl(), db.superuser(), db.superuserPassword(), "standby")) {
        message = refusals.refused(g, b -> {}, () -> Refusals.count(db.sql(
            "SELECT COUNT(*) FROM leasehold_lease WHERE name = '" + g.election + "'")));
      }
      assertTrue(message.contains("refusing a hot standby (pg_is_in_recovery() is true on PostgreSQL 15"), message);
      assertTrue(message.contains("point the elector at the primary"), message);
    }
  }

  @Test
  void aBadTtlNamesTheFieldAndTheValue() {
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> JdbcLeaderElector.builder()
        .jdbcUrl(db.jdbcUrl(), db.superuser(), db.superuserPassword()).electionKey("e").candidateId("c")
        .leaseTtl(Duration.ofMillis(100)).build());
    assertTrue(bad.getMessage().contains("leaseTtl") && bad.getMessage().contains("100"), bad.getMessage());
    assertEquals(List.of(), db.sql("SELECT name FROM leasehold_lease WHERE name = 'e'"), "nothing written");
  }

  private String refused(String test, Consumer<JdbcLeaderElector.Builder> tweak) {
    try (JdbcGroup g = new JdbcGroup(db, test)) {
      return refusals.refused(g, tweak,
          () -> Refusals.count(db.sql("SELECT COUNT(*) FROM leasehold_lease WHERE name = '" + g.election + "'")));
    }
  }
}
