package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.it.CandidateProcess;
import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults on a real mariadbd: the leader's session killed, the row edited from outside, the
 * server paused and restarted, a leading candidate JVM SIGKILLed. TTL 2 s: deadline window
 * 1.78 s, renewal every 333 ms, rpcTimeout 500 ms, observed wait 2.02 s.
 */
@ExtendWith(MariaDbExtension.class)
class JdbcFaultsIT {
  private static final Logger log = LoggerFactory.getLogger(JdbcFaultsIT.class);
  private static final long WINDOW_NANOS = 1_780_000_000L;

  @Test
  void aLeaderWhoseSessionIsKilledStepsDownAndNoOneTakesOverBeforeItsRowIsReleased(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "kill")) {
      for (int i = 1; i <= 3; i++) {
        g.add("k" + i);
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      long token = leader.leadership().orElseThrow().fencingToken();
      String holder = sql1(db, "SELECT holder FROM leasehold_lease WHERE name = '" + g.election + "'");
      String session = sql1(db, "SELECT IS_USED_LOCK('leasehold/" + holder + "')");
      assertEquals(session, sql1(db, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID = " + session));
      long killed = System.nanoTime();
      db.sql("KILL " + session);
      LeadershipEvent loss = g.log(leader).awaitLoss(SOON);
      assertEquals(Cause.STORE_UNAVAILABLE, loss.cause(), "the term ends with its session");
      String reason = loss.reason().orElse("");
      assertTrue(!reason.isEmpty() && !reason.equals("unknown"), "the loss names the failure: " + reason);
      long stepDownMs = (loss.nanoTime() - killed) / 1_000_000;
      assertTrue(loss.nanoTime() - killed < WINDOW_NANOS, "stepped down at its next statement: " + stepDownMs + " ms");
      LeaderElector next = await().atMost(SOON).until(() -> g.electors.stream()
          .filter(e -> e.leadership().map(l -> l.fencingToken() > token).orElse(false)).findFirst(),
          java.util.Optional::isPresent).get();
      LeadershipEvent elected = g.log(next).awaitEvent(Cause.ELECTED, killed, SOON);
      log.info("KILL of the leader's session: step-down after {} ms, next ELECTED (token {}) after {} ms",
          stepDownMs, elected.fencingToken().orElseThrow(), (elected.nanoTime() - killed) / 1_000_000);
      assertEquals(token + 1, elected.fencingToken().orElseThrow());
      assertTrue(elected.nanoTime() >= loss.nanoTime(), "no one took over while the killed leader still led");
      g.awaitLeader();
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void aLeaderStepsDownWhenItsRowIsDeletedOrItsEpochBumpedFromOutside(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "edit")) {
      g.add("e1");
      g.add("e2");
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      long token = leader.leadership().orElseThrow().fencingToken();
      long deleted = System.nanoTime();
      db.sql("DELETE FROM leasehold_lease WHERE name = '" + g.election + "'");
      LeadershipEvent loss = g.log(leader).awaitLoss(SOON);
      // KEY_DELETED when its renewal finds the row gone; KEY_TAKEN when the follower's poll came
      // first and took the free row (then the renewal finds another holder). Both end the term.
      assertTrue(loss.cause() == Cause.KEY_DELETED || loss.cause() == Cause.KEY_TAKEN,
          "row deleted: " + loss.cause());
      log.info("row deleted: the leader stepped down ({}) after {} ms", loss.cause(),
          (loss.nanoTime() - deleted) / 1_000_000);
      LeaderElector second = g.awaitLeader();
      long secondToken = second.leadership().orElseThrow().fencingToken();
      assertTrue(secondToken > token, "1 + the largest epoch read: " + secondToken);
      long bumped = System.nanoTime();
      db.sql("UPDATE leasehold_lease SET epoch = epoch + 1 WHERE name = '" + g.election + "'");
      LeadershipEvent taken = g.log(second).awaitEvent(Cause.KEY_TAKEN, bumped, SOON);
      assertTrue(taken.isLost());
      log.info("epoch bumped: the leader stepped down after {} ms", (taken.nanoTime() - bumped) / 1_000_000);
      LeaderElector third = g.awaitLeader();
      assertTrue(third.leadership().orElseThrow().fencingToken() > secondToken + 1);
      g.assertPaired();
    }
  }

  @Test
  void aPausedServerMakesTheLeaderStepDownBeforeItsDeadline(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "pause")) {
      g.add("s1");
      g.add("s2");
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      Leadership term = leader.leadership().orElseThrow();
      long paused = System.nanoTime();
      db.pause();
      try {
        LeadershipEvent loss = g.log(leader).awaitLoss(Duration.ofSeconds(5));
        long ms = (loss.nanoTime() - paused) / 1_000_000;
        log.info("mariadbd SIGSTOPped: the leader stepped down ({}) after {} ms", loss.cause(), ms);
        assertEquals(Cause.STORE_UNAVAILABLE, loss.cause(), "its renewal timed out");
        assertTrue(loss.nanoTime() - paused < WINDOW_NANOS, "before any deadline it could hold: " + ms + " ms");
        assertFalse(term.isValid());
        // Past the deadline and the row's expiry: still nobody leads, nobody can.
        await().pollDelay(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(() -> g.leaderCount() == 0);
      } finally {
        db.resume();
      }
      LeaderElector next = g.awaitLeader();
      assertTrue(next.leadership().orElseThrow().fencingToken() > term.fencingToken());
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void afterAServerRestartThereIsALeaderAgainWithALargerToken(MariaDbServer db) {
    try (JdbcGroup g = new JdbcGroup(db, "restart")) {
      g.add("t1");
      g.add("t2");
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      long token = leader.leadership().orElseThrow().fencingToken();
      long restarting = System.nanoTime();
      db.restart();
      long up = System.nanoTime();
      LeaderElector next = await().atMost(SOON).until(() -> g.electors.stream()
          .filter(e -> e.leadership().map(l -> l.fencingToken() > token).orElse(false)).findFirst(),
          java.util.Optional::isPresent).get();
      log.info("mariadbd restarted in {} ms; a leader (token {} > {}) {} ms after it was up",
          (up - restarting) / 1_000_000, next.leadership().orElseThrow().fencingToken(), token,
          (System.nanoTime() - up) / 1_000_000);
      assertEquals(Cause.STORE_UNAVAILABLE, g.log(leader).awaitLoss(SOON).cause());
      g.awaitLeader();
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void aSigkilledLeaderJvmIsReplacedWithinTtlPlusOneSecondButNotBeforeItsRowExpired(MariaDbServer db)
      throws Exception {
    String election = "it/sigkill/" + Long.toHexString(System.nanoTime());
    Path logs = Path.of("target", "jdbc-sigkill-it");
    try (CandidateProcess a = start("a", db, election, logs); CandidateProcess b = start("b", db, election, logs)) {
      a.awaitLine(l -> l.startsWith("READY"), SOON);
      b.awaitLine(l -> l.startsWith("READY"), SOON);
      await().atMost(SOON).until(() -> elected(a) || elected(b));
      CandidateProcess leader = elected(a) ? a : b;
      CandidateProcess other = leader == a ? b : a;
      other.awaitLine(l -> l.contains(" LEADER_CHANGED ") && l.contains(" " + leader.id() + " "), SOON);
      long killed = System.nanoTime();
      leader.kill();
      String line = other.awaitLine(l -> l.contains(" ELECTED "), Duration.ofSeconds(6));
      long electedAt = Long.parseLong(line.split(" ")[1]);
      long ms = (electedAt - killed) / 1_000_000;
      log.info("SIGKILL of the leading JVM: the other candidate ELECTED after {} ms (TTL 2 s)", ms);
      assertTrue(ms <= 3_000, "within TTL + 1 s: " + ms + " ms");
      // The last renewal was applied at most TTL/6 + rpcTimeout before the kill (a slower one
      // ends the term), and the follower waits TTL × (1 + ρ) from a read that arrived after it.
      assertTrue(ms >= 2_020 - 333 - 500, "not before the row expired: " + ms + " ms");
      assertEquals(List.of(List.of("b".equals(other.id()) ? "b" : "a")),
          db.sql("SELECT candidate FROM leasehold_lease WHERE name = '" + election + "'"));
    }
  }

  private static boolean elected(CandidateProcess p) {
    return p.lines().stream().anyMatch(l -> l.contains(" ELECTED "));
  }

  private static CandidateProcess start(String id, MariaDbServer db, String election, Path logs) throws Exception {
    return CandidateProcess.start(id, List.of(), election, 2, logs.resolve(id + ".log"),
        "--backend=jdbc", "--jdbc-url=" + db.jdbcUrl(), "--jdbc-user=" + db.rootUser(),
        "--jdbc-password=" + db.rootPassword(), "--allow-relaxed-durability=true", "--poll-millis=500");
  }

  private static String sql1(MariaDbServer db, String query) {
    return db.sql(query).get(0).get(0);
  }
}
