package dev.leasehold.it.jdbc;

import static dev.leasehold.it.jdbc.JdbcGroup.SOON;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Renewal;
import dev.leasehold.it.mariadb.MariaDbExtension;
import dev.leasehold.it.mariadb.MariaDbServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The leader-work watchdog, health and renewal reports on the SQL backend, on a real mariadbd. */
@ExtendWith(MariaDbExtension.class)
class JdbcLeaderWorkIT {
  @Test
  void aStalledLeaderResignsWithWorkStalledAndHealthAndRenewalsReportTheSqlBackend(MariaDbServer db)
      throws Exception {
    Duration stall = Duration.ofMillis(1500);  // several renewals (every TTL/6) before it fires
    ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
    try (JdbcGroup g = new JdbcGroup(db, "watchdog")) {
      LeaderElector silent = g.add("silent", b -> b.workStallTimeout(stall));
      silent.start();
      await().atMost(SOON).until(silent::isLeader);
      Leadership first = silent.leadership().orElseThrow();
      List<Renewal> renewals = new CopyOnWriteArrayList<>();
      silent.onRenewal(renewals::add);
      ElectorHealth h = silent.health();
      assertEquals("jdbc", h.backend());
      assertTrue(h.healthy(), h.toString());
      assertTrue(h.sinceRenewal().isPresent(), "the take counts as the first renewal: " + h);

      LeaderElector beating = g.add("beating", b -> b.workStallTimeout(stall));
      beats.scheduleWithFixedDelay(
          () -> beating.leadership().ifPresent(Leadership::heartbeat), 0, 50, TimeUnit.MILLISECONDS);
      beating.start();

      LeadershipEvent stalled = g.log(silent).awaitLoss(SOON);
      assertEquals(Cause.WORK_STALLED, stalled.cause());
      assertFalse(first.isValid());
      await().atMost(SOON).until(beating::isLeader);
      assertSame(beating, g.awaitLeader());
      assertTrue(beating.leadership().orElseThrow().fencingToken() > first.fencingToken(), "the next epoch");
      assertTrue(renewals.stream().anyMatch(r -> r.role() == ElectorState.MASTER),
          "the stalled leader's renewals were reported before it resigned: " + renewals);
      ElectorHealth follower = silent.health();
      assertEquals(ElectorState.FOLLOWER, follower.state());
      assertTrue(follower.healthy(), follower.toString());
      assertEquals(Optional.empty(), follower.sinceRenewal(), "a SQL follower holds no lease");
      g.assertPaired();
      g.assertNoOverlap();
    } finally {
      beats.shutdownNow();
    }
  }
}
