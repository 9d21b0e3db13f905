package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdLeaderElector;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The election scenarios on a one-member etcd cluster, plus a whole-cluster outage. */
class SingleMemberElectionIT extends ElectionScenarios {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  @Override
  EtcdCluster cluster() {
    return ETCD.cluster();
  }

  @Test
  void masterStepsDownByItsLocalDeadlineWhenEtcdStopsAndLeadsAgainWhenItReturns() {
    Duration ttl = Duration.ofSeconds(3);
    EtcdLeaderElector a = candidates.add("a", ttl);
    candidates.add("b", ttl);
    candidates.startAll();
    EtcdLeaderElector master = awaitSingleLeader();
    EventLog l = candidates.logOf(master);
    try {
      cluster().member(0).stop();
      long stopped = System.nanoTime();
      await().atMost(ttl.plusSeconds(2)).until(() -> l.has(Cause.LEASE_EXPIRED_LOCALLY));
      LeadershipEvent down = l.last(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
      log.info("stepped down {} ms after etcd stopped (TTL {} s)", (down.nanoTime() - stopped) / 1_000_000, ttl.toSeconds());
      assertTrue(down.nanoTime() - stopped < ttl.toNanos(), "stepped down before the TTL ran out");
      assertTrue(candidates.leaderCount() == 0);
      await().atMost(Duration.ofSeconds(5)).until(() -> candidates.logs.stream().allMatch(x -> x.has(Cause.ETCD_UNAVAILABLE)));
    } finally {
      cluster().restoreAll();
    }
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    await().atMost(WAIT).until(() -> candidates.logs.stream().allMatch(x -> x.has(Cause.ETCD_RECOVERED)));
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
    assertTrue(candidates.logOf(a).count(Cause.ETCD_UNAVAILABLE) <= 2, "reported per outage, not per retry");
  }
}
