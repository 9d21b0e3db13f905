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
import dev.leasehold.it.chaos.TcpProxy;
import dev.leasehold.it.postgres.PostgresServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgresFaultsIT breaks a real PostgreSQL 15 under a running election: the leader's term
 * session terminated, the row deleted or its epoch bumped from outside, the server paused
 * (SIGSTOP) and restarted, and the leader's link blackholed. Every time the leader steps down
 * before anyone could take over, and a leader with a larger token follows.
 */
class PostgresFaultsIT {
  private static final Logger log = LoggerFactory.getLogger(PostgresFaultsIT.class);
  // TTL × (1 − ρ) − margin with TTL 2 s: the longest a term can outlive its last renewal's send.
  private static final long WINDOW_NANOS = 1_780_000_000L;
  private static PostgresServer db;

  @BeforeAll
  static void start() {
    db = PostgresServer.builder().name("PostgresFaultsIT").start();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void aLeaderWhoseTermSessionIsTerminatedStepsDownAndNoOneTakesOverBeforeIt() {
    try (JdbcGroup g = new JdbcGroup(db, "terminate")) {
      for (int i = 1; i <= 3; i++) {
        g.add("t" + i);
      }
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      long token = leader.leadership().orElseThrow().fencingToken();
      String pid = PgRows.lockOwners(db, PgRows.holder(db, g.election)).get(0);
      long ended = System.nanoTime();
      assertEquals(1, db.terminateBackends("pid = " + pid));
      LeadershipEvent loss = g.log(leader).awaitLoss(SOON);
      assertEquals(Cause.STORE_UNAVAILABLE, loss.cause(), "the term ends with its session");
      assertTrue(loss.nanoTime() - ended < WINDOW_NANOS, "at its next statement");
      LeaderElector next = leaderAbove(g, token);
      LeadershipEvent elected = g.log(next).awaitEvent(Cause.ELECTED, ended, SOON);
      log.info("pg_terminate_backend of the leader's session: step-down after {} ms, next ELECTED after {} ms",
          (loss.nanoTime() - ended) / 1_000_000, (elected.nanoTime() - ended) / 1_000_000);
      assertTrue(elected.nanoTime() >= loss.nanoTime(), "no one took over while the old leader still led");
      g.awaitLeader();
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void aLeaderStepsDownWhenItsRowIsDeletedOrItsEpochBumpedFromOutside() {
    try (JdbcGroup g = new JdbcGroup(db, "edit")) {
      g.add("e1");
      g.add("e2");
      g.startAll();
      LeaderElector leader = g.awaitLeader();
      long token = leader.leadership().orElseThrow().fencingToken();
      db.sql("DELETE FROM leasehold_lease WHERE name = '" + g.election + "'");
      LeadershipEvent loss = g.log(leader).awaitLoss(SOON);
      assertTrue(loss.cause() == Cause.KEY_DELETED || loss.cause() == Cause.KEY_TAKEN, "row deleted: " + loss.cause());
      LeaderElector second = g.awaitLeader();
      long secondToken = second.leadership().orElseThrow().fencingToken();
      assertTrue(secondToken > token, "1 + the largest epoch read: " + secondToken);
      long bumped = System.nanoTime();
      db.sql("UPDATE leasehold_lease SET epoch = epoch + 1 WHERE name = '" + g.election + "'");
      assertTrue(g.log(second).awaitEvent(Cause.KEY_TAKEN, bumped, SOON).isLost());
      LeaderElector third = g.awaitLeader();
      assertTrue(third.leadership().orElseThrow().fencingToken() > secondToken + 1);
      g.assertPaired();
    }
  }

  @Test
  void aPausedServerMakesTheLeaderStepDownBeforeItsDeadlineAndARestartElectsAgain() {
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
        log.info("postgres SIGSTOPped: the leader stepped down ({}) after {} ms", loss.cause(),
            (loss.nanoTime() - paused) / 1_000_000);
        assertEquals(Cause.STORE_UNAVAILABLE, loss.cause(), "its renewal timed out");
        assertTrue(loss.nanoTime() - paused < WINDOW_NANOS, "before any deadline it could hold");
        assertFalse(term.isValid());
      } finally {
        db.resume();
      }
      LeaderElector second = leaderAbove(g, term.fencingToken());
      long token = second.leadership().orElseThrow().fencingToken();
      long restarting = System.nanoTime();
      db.restart();
      long up = System.nanoTime();
      LeaderElector third = leaderAbove(g, token);
      log.info("postgres restarted in {} ms; a leader (token {} > {}) {} ms after it was up",
          (up - restarting) / 1_000_000, third.leadership().orElseThrow().fencingToken(), token,
          (System.nanoTime() - up) / 1_000_000);
      g.awaitLeader();
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  @Test
  void aLeaderCutOffByABlackholedLinkStepsDownBeforeTheOtherTakesOver() throws Exception {
    try (TcpProxy link = TcpProxy.start("pg-link", db.port());
        JdbcGroup g = new JdbcGroup(db, "cut")) {
      String viaLink = "jdbc:postgresql://127.0.0.1:" + link.port() + "/" + PostgresServer.DATABASE;
      LeaderElector cut = g.add("cut", b -> b.jdbcUrl(viaLink, db.superuser(), db.superuserPassword()));
      cut.start();
      await().atMost(SOON).until(cut::isLeader);
      LeaderElector other = g.add("other");
      other.start();
      g.awaitLeader();
      long token = cut.leadership().orElseThrow().fencingToken();
      long blackholed = System.nanoTime();
      link.setMode(TcpProxy.Mode.BLACKHOLE);
      LeadershipEvent loss = g.log(cut).awaitLoss(SOON);
      LeadershipEvent elected = g.log(other).awaitEvent(Cause.ELECTED, blackholed, SOON);
      log.info("leader's link blackholed: step-down ({}) after {} ms, the other ELECTED after {} ms",
          loss.cause(), (loss.nanoTime() - blackholed) / 1_000_000, (elected.nanoTime() - blackholed) / 1_000_000);
      assertTrue(elected.fencingToken().orElseThrow() > token);
      assertTrue(elected.nanoTime() >= loss.nanoTime(), "the cut-off leader stepped down first");
      link.setMode(TcpProxy.Mode.PASS);
      await().atMost(SOON).until(() -> cut.currentLeader().map(l -> l.candidateId().equals("other")).orElse(false));
      g.assertPaired();
      g.assertNoOverlap();
    }
  }

  private static LeaderElector leaderAbove(JdbcGroup g, long token) {
    return await().atMost(SOON).until(() -> g.electors.stream()
        .filter(e -> e.leadership().map(l -> l.fencingToken() > token).orElse(false)).findFirst(),
        Optional::isPresent).get();
  }
}
