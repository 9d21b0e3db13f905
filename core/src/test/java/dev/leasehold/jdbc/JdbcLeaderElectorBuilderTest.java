package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder names the field and the bad value, and builds without connecting. */
class JdbcLeaderElectorBuilderTest {
  private static JdbcLeaderElector.Builder valid() {
    return JdbcLeaderElector.builder()
        .jdbcUrl("jdbc:mariadb://127.0.0.1:1/db", "app", "secret")
        .electionKey("orders/scheduler")
        .leaseTtl(Duration.ofSeconds(2));
  }

  private static String rejected(JdbcLeaderElector.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void aValidConfigurationBuildsAFollowerThatHasNotConnected() {
    LeaderElector e = valid().build();
    assertEquals(ElectorState.FOLLOWER, e.state());
    e.close();
  }

  @Test
  void transferToIsRefusedNamingTheBackendNeverIgnored() {
    LeaderElector e = valid().build();
    String said = assertThrows(UnsupportedOperationException.class, () -> e.transferTo("other")).getMessage();
    assertTrue(said.startsWith("transferTo is not supported by ") && said.contains("@orders/scheduler on the jdbc"
        + " backend: the SQL row protocol keeps no queue of live candidates"), said);
    e.close();
  }

  @Test
  void aHealthCheckIsRefusedNamingTheBackend() {
    String said = rejected(valid().healthCheck(() -> true));
    assertTrue(said.startsWith("healthCheck is not supported on the jdbc backend: an unhealthy leader yields"), said);
  }

  @Test
  void theElectionNameMustFitTheRowsName() {
    assertEquals("electionKey must match [A-Za-z0-9._/-]{1,128} (it is the lease row's name), but was \"a b\"",
        rejected(valid().electionKey("a b")));
    assertTrue(rejected(valid().electionKey("x".repeat(129))).startsWith("electionKey must match"));
    valid().electionKey("a.B_c-9/x").build().close();
  }

  @Test
  void theTableNameIsValidated() {
    assertEquals("table must be a name like leasehold_lease or mydb.leasehold_lease (letters, digits, _ or $,"
        + " starting with a letter or _, at most 64 each), but was \"lease; DROP TABLE x\"",
        rejected(valid().table("lease; DROP TABLE x")));
    assertTrue(rejected(valid().table("a.b.c")).contains("\"a.b.c\""));
    assertTrue(rejected(valid().table("`x`")).contains("\"`x`\""));
    valid().table("ops.leases").build().close();
  }

  @Test
  void exactlyOneSourceOfSessions() {
    assertEquals("jdbcUrl must be a JDBC URL such as jdbc:postgresql://host:5432/db (or set dataSource), but was null",
        rejected(JdbcLeaderElector.builder().electionKey("e")));
    assertTrue(rejected(valid().jdbcUrl("mariadb://h/db", "u", "p")).endsWith("but was \"mariadb://h/db\""));
    assertTrue(rejected(valid().dataSource(unusedDataSource())).startsWith("dataSource must not be set together"));
  }

  private static javax.sql.DataSource unusedDataSource() {
    return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
        JdbcLeaderElectorBuilderTest.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
        (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void theTtlIsWholeMillisecondsOfAtLeastHalfASecond() {
    LeaderElector e = valid().leaseTtl(Duration.ofMillis(1500)).build();
    assertEquals(Duration.ofMillis(1500), e.config().leaseTtl());
    e.close();
    valid().leaseTtl(Duration.ofMillis(500)).pollInterval(Duration.ofMillis(500)).build().close();
    assertEquals("leaseTtl must be >= 500ms, but was 499ms", rejected(valid().leaseTtl(Duration.ofMillis(499))));
    assertEquals("leaseTtl must be a whole number of milliseconds, but was 1.5005s",
        rejected(valid().leaseTtl(Duration.ofNanos(1_500_500_000))));
    // At the minimum, the default pollInterval (1 s) reaches the session's wait_timeout (2 × TTL).
    assertEquals("pollInterval must be < 2 × leaseTtl (1000ms, the term session's wait_timeout), but was 1000ms",
        rejected(valid().leaseTtl(Duration.ofMillis(500))));
  }

  @Test
  void thePollIntervalMustStayUnderTheSessionsWaitTimeout() {
    assertEquals("pollInterval must be < 2 × leaseTtl (4000ms, the term session's wait_timeout), but was 4000ms",
        rejected(valid().pollInterval(Duration.ofSeconds(4))));
  }

  @Test
  void theNeutralChecksStillApply() {
    assertTrue(rejected(valid().rpcTimeout(Duration.ofSeconds(1))).startsWith("rpcTimeout must be < leaseTtl/3"));
    assertTrue(rejected(valid().candidateId("c".repeat(256))).startsWith("candidateId must be at most 255"));
  }

  @Test
  void theTableSqlIsThePrococolsWithTheNameQuoted() {
    LeaseSql t = LeaseSql.of(SqlDialect.MARIADB, LeaseTable.of("ops.leases"));
    assertEquals("SELECT epoch, holder FROM `ops`.`leases` WHERE name = ? LOCK IN SHARE MODE", t.guard());
    assertTrue(t.ddl().startsWith("CREATE TABLE IF NOT EXISTS `ops`.`leases` ("));
    assertTrue(t.take().endsWith("WHERE name = ? AND holder = ? AND version = ? AND (holder = '' OR expires_at <= UTC_TIMESTAMP(6))"));
  }

  @Test
  void onPostgresTheServerClockIsClockTimestampAndTheGuardReadsForShare() {
    LeaseSql t = LeaseSql.of(SqlDialect.POSTGRESQL, LeaseTable.of("ops.leases"));
    assertTrue(t.guard().endsWith("FROM \"ops\".\"leases\" WHERE name = ? FOR SHARE"), t.guard());
    assertTrue(t.ddl().startsWith("CREATE TABLE IF NOT EXISTS \"ops\".\"leases\" ("));
    assertTrue(t.take().endsWith("WHERE name = ? AND holder = ? AND version = ? AND (holder = '' OR expires_at <= clock_timestamp())"));
    assertTrue(t.insert().endsWith("ON CONFLICT (name) DO NOTHING"));
    for (String s : List.of(t.read(), t.insert(), t.take(), t.renew(), t.release(), t.ddl())) {
      assertFalse(s.contains("now()") || s.contains("UTC_TIMESTAMP") || s.contains("`"), s);
    }
  }

  @Test
  void getLockTimeoutsAreFractionalOnMariaDbAndRoundedUpOnMySql() {
    assertEquals(new BigDecimal("0.250000"), SqlDialect.MARIADB.lockTimeout(250_000_000L));
    assertEquals(1L, SqlDialect.MYSQL.lockTimeout(250_000_000L));
    assertEquals(0, SqlDialect.MYSQL.lockTimeout(0));
    assertEquals(SqlDialect.MARIADB, SqlDialect.of("10.11.19-MariaDB-0+deb12u1"));
    assertEquals(SqlDialect.MYSQL, SqlDialect.of("8.0.36"));
  }

  @Test
  void holderTokensAre32HexDigitsAndNameTheirLock() {
    HolderToken h = HolderToken.random(new java.util.SplittableRandom(3));
    assertTrue(h.wellFormed(), h.value());
    assertEquals(42, h.lockName().length());
    assertEquals(Long.parseUnsignedLong(h.value().substring(0, 16), 16), h.leaseId());
  }
}
