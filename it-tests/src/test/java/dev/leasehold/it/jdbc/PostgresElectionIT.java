package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.it.postgres.PgBouncer;
import dev.leasehold.it.postgres.PostgresServer;
import dev.leasehold.jdbc.JdbcFencing;
import dev.leasehold.jdbc.StaleLeadershipException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * PostgresElectionIT runs the SQL backend on a real PostgreSQL 15, directly and through
 * PgBouncer in transaction pooling: one leader that the followers know, millisecond handovers
 * woken by the holder's advisory lock, a clean close, and the guard refusing a stale term.
 */
class PostgresElectionIT {
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(PostgresElectionIT.class);
  private static PostgresServer db;

  @BeforeAll
  static void start() {
    db = PostgresServer.builder().name("PostgresElectionIT").start();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void threeCandidatesElectOneLeaderAndResignHandsOverInMilliseconds() {
    try (JdbcGroup g = new JdbcGroup(db, "resign")) {
      for (int i = 1; i <= 3; i++) {
        g.add("r" + i);
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      Leadership first = leader.leadership().orElseThrow();
      List<String> row = PgRows.row(db, g.election);
      assertEquals(leader.config().candidateId(), row.get(0), "the row names the leader");
      assertEquals(Long.toString(first.fencingToken()), row.get(1), "the token is the row's epoch");
      List<String> owners = PgRows.lockOwners(db, row.get(2));
      assertEquals(1, owners.size(), "the leader holds L(h) on its term session: " + owners);
      List<Double> handovers = new ArrayList<>();
      for (int round = 0; round < 5; round++) {
        long token = leader.leadership().orElseThrow().fencingToken();
        long asked = System.nanoTime();
        leader.resign();
        LeaderElector next = g.awaitLeaderOtherThan(leader);
        LeadershipEvent elected = g.log(next).awaitEvent(Cause.ELECTED, asked, SOON);
        handovers.add((elected.nanoTime() - asked) / 1e6);
        assertEquals(token + 1, elected.fencingToken().orElseThrow(), "the next epoch");
        assertEquals(Cause.RESIGNED, g.log(leader).awaitLoss(SOON).cause());
        leader = next;
      }
      List<Double> sorted = new ArrayList<>(handovers);
      Collections.sort(sorted);
      log.info("PostgreSQL: resign() to the successor's ELECTED, 5 rounds: {} ms (median {} ms)", handovers,
          sorted.get(2));
      // The poll interval is 500 ms: a median under it shows the wake-up, not the poll, handed over.
      assertTrue(sorted.get(2) < 250, "a resignation wakes a follower at once: " + handovers);
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void closeLeavesNoLockNoSessionAndNoLiveRow() {
    db.createRole("closer", "closer-pw");
    try (JdbcGroup g = new JdbcGroup(db, "close")) {
      // The superuser's first elector creates the table; the role may then use it, and nothing more.
      LeaderElector creator = g.add("creator");
      creator.start();
      g.awaitLeader();
      creator.close();
      db.sql("GRANT SELECT, INSERT, UPDATE ON leasehold_lease TO closer");
      List<LeaderElector> electors = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        electors.add(g.add("k" + i, b -> b.jdbcUrl(db.jdbcUrl(), "closer", "closer-pw")));
      }
      electors.forEach(LeaderElector::start);
      LeaderElector leader = g.awaitLeaderOtherThan(creator);
      String holder = PgRows.holder(db, g.election);
      String leaderPid = PgRows.lockOwners(db, holder).get(0);
      long asked = System.nanoTime();
      leader.close();
      log.info("close() of the leader took {} ms", (System.nanoTime() - asked) / 1_000_000);
      assertFalse(PgRows.lockOwners(db, holder).contains(leaderPid), "the leader's session let L(h) go in close()");
      assertEquals(Cause.CLOSED, g.log(leader).awaitLoss(SOON).cause());
      g.awaitLeaderOtherThan(leader);
      g.electors.forEach(LeaderElector::close);
      await().atMost(SOON).until(() -> db.sql("SELECT pid FROM pg_stat_activity WHERE usename = 'closer'").isEmpty());
      assertEquals(0, PgRows.advisoryLocks(db), "no advisory lock is left");
      assertEquals(List.of(List.of("t")), db.sql("SELECT holder = '' AND expires_at <= clock_timestamp()"
          + " FROM leasehold_lease WHERE name = '" + g.election + "'"), "the last leader released the row");
      g.assertPaired();
    }
  }

  @Test
  void aFencedWriteFromAStaleLeaderIsRefusedAndTheGuardBoundsItsTransactionsIdleTime() throws SQLException {
    db.sql("CREATE TABLE IF NOT EXISTS fenced (id INT PRIMARY KEY, n INT NOT NULL, token BIGINT NOT NULL)");
    db.sql("INSERT INTO fenced VALUES (1, 0, 0) ON CONFLICT (id) DO UPDATE SET n = 0, token = 0");
    try (JdbcGroup g = new JdbcGroup(db, "fenced");
        Connection app = DriverManager.getConnection(db.jdbcUrl(), db.superuser(), db.superuserPassword())) {
      g.add("f1");
      g.add("f2");
      g.startAll();
      LeaderElector first = g.awaitLeader();
      Leadership old = first.leadership().orElseThrow();
      assertTrue(write(app, old), "the current term writes");
      first.resign();
      LeaderElector second = g.awaitLeaderOtherThan(first);
      Leadership current = second.leadership().orElseThrow();
      StaleLeadershipException stale = assertThrows(StaleLeadershipException.class, () -> write(app, old));
      log.info("stale write refused: {}", stale.getMessage());
      assertTrue(write(app, current));
      assertEquals(List.of(List.of("2", Long.toString(current.fencingToken()))), db.sql("SELECT n, token FROM fenced"),
          "two writes, the stale one rolled back");
      app.setAutoCommit(false);
      JdbcFencing.guard(app, current);
      assertEquals("2s", scalar(app, "SHOW idle_in_transaction_session_timeout"), "a dead writer holds the row a TTL");
      app.rollback();
      app.setAutoCommit(true);
      assertEquals("0", scalar(app, "SHOW idle_in_transaction_session_timeout"), "for the guarded transaction only");
      assertThrows(IllegalArgumentException.class, () -> JdbcFencing.guard(app, current));
    }
  }

  @Test
  void throughPgBouncerInTransactionModeTheElectorPollsLeavesNoLockBehindAndTheGuardStillFences()
      throws SQLException {
    Logger probeLog = (Logger) LoggerFactory.getLogger("dev.leasehold.jdbc.PoolerProbe");
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    probeLog.addAppender(logged);
    try (PgBouncer bouncer = PgBouncer.start(db);
        JdbcGroup g = new JdbcGroup(bouncer.jdbcUrl(), db.superuser(), db.superuserPassword(), "bouncer");
        Connection app = DriverManager.getConnection(bouncer.jdbcUrl() + "?prepareThreshold=0", db.superuser(),
            db.superuserPassword())) {
      assertEquals(PgBouncer.PoolMode.TRANSACTION, bouncer.poolMode());
      db.sql("CREATE TABLE IF NOT EXISTS fenced (id INT PRIMARY KEY, n INT NOT NULL, token BIGINT NOT NULL)");
      db.sql("INSERT INTO fenced VALUES (1, 0, 0) ON CONFLICT (id) DO UPDATE SET n = 0, token = 0");
      // All at once, as a fleet restarts: each elector's probe still sees the pooler.
      for (int i = 1; i <= 3; i++) {
        g.add("b" + i);
      }
      g.electors.parallelStream().forEach(LeaderElector::start);
      await().atMost(SOON).until(() -> logged.list.stream()
          .filter(e -> e.getFormattedMessage().contains("a transaction pooler serves")).count() >= 3);
      LeaderElector leader = g.awaitLeader();
      long said = logged.list.stream().filter(e -> e.getFormattedMessage().contains("a transaction pooler")).count();
      assertEquals(3, said, "one INFO line per elector: " + logged.list);
      assertEquals(0, PgRows.advisoryLocks(db), "no session lock on a pooled server connection");
      Leadership old = leader.leadership().orElseThrow();
      assertTrue(write(app, old));
      long asked = System.nanoTime();
      leader.resign();
      LeaderElector next = g.awaitLeaderOtherThan(leader);
      log.info("through PgBouncer (transaction mode): resign() to the next ELECTED in {} ms",
          (g.log(next).awaitEvent(Cause.ELECTED, asked, SOON).nanoTime() - asked) / 1_000_000);
      assertThrows(StaleLeadershipException.class, () -> write(app, old));
      assertTrue(write(app, next.leadership().orElseThrow()));
      g.electors.forEach(LeaderElector::close);
      assertEquals(0, PgRows.advisoryLocks(db), "none after close either");
      g.assertPaired();
      g.assertNoOverlap();
    } finally {
      probeLog.detachAppender(logged);
    }
  }

  @Test
  void electorsStartedAtTheSameInstantBehindPgBouncerAllSeeThePooler() {
    Logger probeLog = (Logger) LoggerFactory.getLogger("dev.leasehold.jdbc.PoolerProbe");
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    probeLog.addAppender(logged);
    try (PgBouncer bouncer = PgBouncer.start(db)) {
      for (int round = 1; round <= 5; round++) {
        logged.list.clear();
        try (JdbcGroup g = new JdbcGroup(bouncer.jdbcUrl(), db.superuser(), db.superuserPassword(), "herd" + round)) {
          for (int i = 1; i <= 4; i++) {
            g.add("h" + i);
          }
          g.electors.parallelStream().forEach(LeaderElector::start);
          g.awaitLeader();
          await("round " + round + ": every elector's INFO line that it saw the pooler").atMost(SOON)
              .until(() -> logged.list.stream()
                  .filter(e -> e.getFormattedMessage().contains("a transaction pooler serves")).count() == 4);
          assertEquals(0, PgRows.advisoryLocks(db), "round " + round + ": no session lock on a pooled connection");
        }
      }
    } finally {
      probeLog.detachAppender(logged);
    }
  }

  /** write increments the counter in a transaction guarded by {@code term}. */
  private static boolean write(Connection c, Leadership term) throws SQLException {
    c.setAutoCommit(false);
    try {
      JdbcFencing.guard(c, term);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("UPDATE fenced SET n = n + 1, token = " + term.fencingToken() + " WHERE id = 1");
      }
      c.commit();
      return true;
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
  }

  private static String scalar(Connection c, String query) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
