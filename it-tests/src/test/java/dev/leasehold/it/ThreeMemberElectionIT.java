package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The election scenarios on a three-member etcd cluster, plus member failures. */
class ThreeMemberElectionIT extends ElectionScenarios {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(3);

  @Override
  EtcdCluster cluster() {
    return ETCD.cluster();
  }

  @Test
  void killingTheEtcdLeaderMemberDoesNotCostLeadershipAtTtlFiveSeconds() {
    Duration ttl = Duration.ofSeconds(5);
    candidates.add("a", ttl);
    candidates.add("b", ttl);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    EventLog l = candidates.logOf(master);
    EtcdMember etcdLeader = cluster().awaitLeader(Duration.ofSeconds(10));
    try {
      etcdLeader.kill();
      // A new etcd leader, and then two full TTLs of renewals through it: no loss.
      cluster().awaitLeader(Duration.ofSeconds(10));
      await()
          .during(ttl.multipliedBy(2))
          .atMost(ttl.multipliedBy(3))
          .until(() -> master.isLeader() && l.events().stream().noneMatch(LeadershipEvent::isLost));
    } finally {
      cluster().restoreAll();
    }
    assertTrue(master.isLeader());
    assertEquals(1, candidates.leaderCount());
  }

  @Test
  void masterStepsDownByItsLocalDeadlineWhenEveryMemberStopsAndLeadsAgainAfter() {
    Duration ttl = Duration.ofSeconds(3);
    candidates.add("a", ttl);
    candidates.add("b", ttl);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    EventLog l = candidates.logOf(master);
    long quorumLost;
    try {
      cluster().member(0).stop();
      cluster().member(1).stop();
      // Renewals cannot be confirmed from here on: the remaining member has no quorum.
      quorumLost = System.nanoTime();
      cluster().member(2).stop();
      await().atMost(ttl.plusSeconds(2)).until(() -> l.has(Cause.LEASE_EXPIRED_LOCALLY));
      LeadershipEvent down = l.last(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
      log.info("stepped down {} ms after quorum was lost (TTL {} s)", (down.nanoTime() - quorumLost) / 1_000_000, ttl.toSeconds());
      assertTrue(down.nanoTime() - quorumLost < ttl.toNanos(), "stepped down before the TTL ran out");
    } finally {
      cluster().restoreAll();
    }
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
  }
}
