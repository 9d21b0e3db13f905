package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import dev.leasehold.jdbc.JdbcFencing;
import dev.leasehold.jdbc.StaleLeadershipException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Elections on a real mariadbd: one leader that everyone knows, resign, twins, close, fencing, a pool beside. */
@ExtendWith(MariaDbExtension.class)
class JdbcElectionIT {
  private static final Logger log = LoggerFactory.getLogger(JdbcElectionIT.class);

  @Test
  void fiveCandidatesElectExactlyOneLeaderThatTheFollowersKnow(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "five")) {
      for (int i = 1; i <= 5; i++) {
        g.add("c" + i);
      }
      long began = System.nanoTime();
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      log.info("five candidates: leader {} known to all after {} ms", leader.config().candidateId(),
          (System.nanoTime() - began) / 1_000_000);
      Leadership term = leader.leadership().orElseThrow();
      List<String> row = row(db, g.election);
      assertEquals(leader.config().candidateId(), row.get(0), "the row names the leader");
      assertEquals(Long.toString(term.fencingToken()), row.get(1), "the token is the row's epoch");
      await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> g.leaderCount() == 1);
      assertTrue(term.isValid(), "renewals keep the term");
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void resignHandsOverInMilliseconds(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "resign")) {
      for (int i = 1; i <= 3; i++) {
        g.add("r" + i);
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
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
      log.info("resign() to the successor's ELECTED, 5 rounds: {} ms (median {} ms)", handovers, sorted.get(2));
      assertTrue(sorted.get(2) < 1000, "a resignation hands over by release, not by expiry: " + handovers);
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void twoCandidatesWithTheSameIdStillElectOneLeader(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "twins")) {
      LeaderElector a = g.add("twin");
      LeaderElector b = g.add("twin");
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> g.leaderCount() == 1);
      LeaderElector other = leader == a ? b : a;
      assertEquals("twin", other.currentLeader().orElseThrow().candidateId());
      leader.resign();
      assertEquals(other, g.awaitLeaderOtherThan(leader), "the twin takes over: the holder token decides, not the id");
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void closeLeavesNoLockHeldAndTheRowReleased(MariaDbServer db) {
    db.createUser("closer", "closer-pw", "SELECT, INSERT, UPDATE, DELETE, CREATE ON leasehold.*");
    try (JdbcGroup g = new JdbcGroup(db, "close")) {
      for (int i = 1; i <= 3; i++) {
        g.add("k" + i, b -> b.jdbcUrl(db.jdbcUrl(), "closer", "closer-pw"));
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      String holder = db.sql("SELECT holder FROM leasehold_lease WHERE name = '" + g.election + "'").get(0).get(0);
      String lock = "SELECT IS_USED_LOCK('leasehold/" + holder + "')";
      String leaderSession = db.sql(lock).get(0).get(0);
      assertNotNull(leaderSession, "the leader holds L(h)");
      long asked = System.nanoTime();
      leader.close();
      log.info("close() of the leader took {} ms", (System.nanoTime() - asked) / 1_000_000);
      // A follower waiting in GET_LOCK(L(h), t) is woken by taking L(h) and lets it go at once, so
      // right after close() the lock may be a follower's for a moment, but never the leader's session's.
      assertNotEquals(leaderSession, db.sql(lock).get(0).get(0), "the leader's session let L(h) go in close()");
      await().atMost(SOON).until(() -> db.sql(lock).get(0).get(0) == null);
      List<String> row = db.sql("SELECT holder, expires_at <= UTC_TIMESTAMP(6) FROM leasehold_lease WHERE name = '"
          + g.election + "'").get(0);
      assertTrue(row.get(0).isEmpty() || !row.get(0).equals(holder), "released (or already taken over): " + row);
      assertEquals(Cause.CLOSED, g.log(leader).awaitLoss(SOON).cause());
      g.awaitLeaderOtherThan(leader);
      g.electors.forEach(LeaderElector::close);
      // Every session of the electors is gone, and named locks live no longer than their session.
      await().atMost(Duration.ofSeconds(5)).until(
          () -> db.sql("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'closer'").isEmpty());
      List<String> last = row(db, g.election);
      assertEquals("1", db.sql("SELECT holder = '' AND expires_at <= UTC_TIMESTAMP(6) FROM leasehold_lease WHERE name = '"
          + g.election + "'").get(0).get(0), "the last leader released the row too: " + last);
      g.assertPaired();
    }
  }

  @Test
  void aFencedWriteFromAStaleLeaderIsRefused(MariaDbServer db) throws SQLException {
    db.sql("CREATE TABLE IF NOT EXISTS fenced (id INT PRIMARY KEY, n INT NOT NULL, token BIGINT NOT NULL) ENGINE = InnoDB");
    db.sql("INSERT INTO fenced VALUES (1, 0, 0) ON DUPLICATE KEY UPDATE n = 0, token = 0");
    try (JdbcGroup g = new JdbcGroup(db, "fenced");
        Connection app = DriverManager.getConnection(db.jdbcUrl(), db.rootUser(), db.rootPassword())) {
      g.add("f1");
      g.add("f2");
      g.startAll();
      LeaderElector first = g.awaitLeader();
      Leadership old = first.leadership().orElseThrow();
      assertTrue(write(app, old), "the current term writes");
      first.resign();
      LeaderElector second = g.awaitLeaderOtherThan(first);
      Leadership current = second.leadership().orElseThrow();
      assertFalse(old.isValid());
      StaleLeadershipException stale = assertThrows(StaleLeadershipException.class, () -> write(app, old));
      log.info("stale write refused: {}", stale.getMessage());
      assertEquals(old.fencingToken(), stale.fencingToken());
      assertTrue(write(app, current));
      assertEquals(List.of(List.of("2", Long.toString(current.fencingToken()))), db.sql("SELECT n, token FROM fenced"),
          "two writes, the stale one rolled back");
      app.setAutoCommit(true);
      IllegalArgumentException autocommit =
          assertThrows(IllegalArgumentException.class, () -> JdbcFencing.guard(app, current));
      assertTrue(autocommit.getMessage().contains("setAutoCommit(false)"), autocommit.getMessage());
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

  @Test
  void electorsBesideAnApplicationPoolElectOneLeaderOnSessionsOfTheirOwn(MariaDbServer db) throws SQLException {
    db.createUser("pooled", "pooled-pw", "SELECT, INSERT, UPDATE, DELETE ON leasehold.*");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername("pooled");
    config.setPassword("pooled-pw");
    config.setMaximumPoolSize(2);
    config.setMaxLifetime(30_000); // the pool recycles its connections; the term session must not be one
    db.sql("CREATE TABLE IF NOT EXISTS fenced (id INT PRIMARY KEY, n INT NOT NULL, token BIGINT NOT NULL) ENGINE = InnoDB");
    db.sql("INSERT INTO fenced VALUES (1, 0, 0) ON DUPLICATE KEY UPDATE n = 0, token = 0");
    try (HikariDataSource pool = new HikariDataSource(config); JdbcGroup g = new JdbcGroup(db, "pool")) {
      for (int i = 1; i <= 3; i++) {
        g.add("p" + i);
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      String holder = db.sql("SELECT holder FROM leasehold_lease WHERE name = '" + g.election + "'").get(0).get(0);
      String lockOwner = db.sql("SELECT IS_USED_LOCK('leasehold/" + holder + "')").get(0).get(0);
      String user = db.sql("SELECT USER FROM information_schema.PROCESSLIST WHERE ID = " + lockOwner).get(0).get(0);
      assertEquals("root", user, "L(h) is held on the elector's own session, not on one of the pool's");
      for (int i = 0; i < 3; i++) {
        try (Connection c = pool.getConnection()) {
          assertTrue(write(c, leader.leadership().orElseThrow()));
        }
      }
      leader.resign();
      LeaderElector next = g.awaitLeaderOtherThan(leader);
      try (Connection c = pool.getConnection()) {
        Leadership stale = g.log(leader).all().stream().filter(LeadershipEvent::isElected)
            .reduce((a, b) -> b).flatMap(LeadershipEvent::leadership).orElseThrow();
        assertThrows(StaleLeadershipException.class, () -> write(c, stale));
        assertTrue(write(c, next.leadership().orElseThrow()));
      }
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  private static List<String> row(MariaDbServer db, String election) {
    return db.sql("SELECT candidate, epoch, holder, version FROM leasehold_lease WHERE name = '" + election + "'").get(0);
  }
}
