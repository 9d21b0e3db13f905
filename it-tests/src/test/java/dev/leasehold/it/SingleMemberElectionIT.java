package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdLeaderElector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
  void aSameThreadListenerRunsOffTheEventLoopAndCanCloseItsElectorOnElected() throws Exception {
    LeaderElector e = EtcdLeaderElector.builder()
        .endpoints(cluster().clientEndpoints().toArray(String[]::new))
        .electionKey(candidates.key)
        .candidateId("closes-on-elected")
        .leaseTtl(TTL)
        .build();
    List<String> threads = new CopyOnWriteArrayList<>();
    List<Cause> causes = new CopyOnWriteArrayList<>();
    e.onLeadershipChanged(event -> {
      threads.add(Thread.currentThread().getName());
      causes.add(event.cause());
      if (event.cause() == Cause.ELECTED) {
        e.close();
      }
    }, Runnable::run);
    try {
      e.start();
      await().atMost(WAIT).until(() -> causes.contains(Cause.CLOSED));
      assertEquals(List.of(Cause.SUBSCRIBED, Cause.ELECTED, Cause.CLOSED), causes);
      assertTrue(threads.stream().allMatch(t -> t.startsWith("leasehold-events-")), threads.toString());
      assertEquals(ElectorState.STOPPED, e.state());
      // close() revoked the lease, and the key went with it, well before the TTL.
      assertEquals(0, outside.getKVClient().get(key()).get(5, TimeUnit.SECONDS).getCount());
    } finally {
      e.close();
    }
  }

  @Test
  void masterStepsDownByItsLocalDeadlineWhenEtcdStopsAndLeadsAgainWhenItReturns() {
    Duration ttl = Duration.ofSeconds(3);
    LeaderElector a = candidates.add("a", ttl);
    candidates.add("b", ttl);
    candidates.startAll();
    LeaderElector master = awaitSingleLeader();
    EventLog l = candidates.logOf(master);
    try {
      cluster().member(0).stop();
      long stopped = System.nanoTime();
      await().atMost(ttl.plusSeconds(2)).until(() -> l.has(Cause.LEASE_EXPIRED_LOCALLY));
      LeadershipEvent down = l.last(Cause.LEASE_EXPIRED_LOCALLY).orElseThrow();
      log.info("stepped down {} ms after etcd stopped (TTL {} s)", (down.nanoTime() - stopped) / 1_000_000, ttl.toSeconds());
      assertTrue(down.nanoTime() - stopped < ttl.toNanos(), "stepped down before the TTL ran out");
      assertTrue(candidates.leaderCount() == 0);
      await().atMost(Duration.ofSeconds(5)).until(() -> candidates.logs.stream().allMatch(x -> x.has(Cause.STORE_UNAVAILABLE)));
    } finally {
      cluster().restoreAll();
    }
    await().atMost(WAIT).until(() -> candidates.leader().isPresent());
    await().atMost(WAIT).until(() -> candidates.logs.stream().allMatch(x -> x.has(Cause.STORE_RECOVERED)));
    candidates.logs.forEach(EventLog::assertOrderedAndPaired);
    assertTrue(candidates.logOf(a).count(Cause.STORE_UNAVAILABLE) <= 2, "reported per outage, not per retry");
  }
}
