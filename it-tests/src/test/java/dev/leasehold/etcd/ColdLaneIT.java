package dev.leasehold.etcd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.it.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Electors started together on one given client and key make their cold campaigns one round
 * after the first ({@link ColdLane}): with etcd frozen, only the pilot's grant is sent and every
 * other waits; once etcd answers, one of them leads and every one knows it. A pilot that closes
 * lets the others go; electors closed while their grants wait leave no lease behind.
 */
class ColdLaneIT {
  private static final Logger log = LoggerFactory.getLogger(ColdLaneIT.class);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final List<LeaderElector> electors = new ArrayList<>();
  private final Client shared = Client.builder().endpoints(ETCD.cluster().clientEndpoints().get(0))
      .executorService(EtcdCallPolicy.contextExecutor(Executors.newFixedThreadPool(2)))
      .interceptor(new EtcdCallPolicy(Duration.ofSeconds(1))).build();

  @AfterEach
  void cleanUp() throws Exception {
    ETCD.cluster().restoreAll();
    // The electors first, all at once, while their client is still open.
    closeAll(electors, 60);
    shared.close();
  }

  // start builds n more electors on the shared client and key, then starts them all at once.
  private List<LeaderElector> start(String key, int n, int ttlSeconds) {
    List<LeaderElector> herd = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      herd.add(EtcdLeaderElector.builder().client(shared).electionKey(key).candidateId("c" + (electors.size() + i))
          .leaseTtl(Duration.ofSeconds(ttlSeconds)).build());
    }
    electors.addAll(herd);
    herd.forEach(LeaderElector::start);
    return herd;
  }

  // A pilot and the others whose cold grants wait for it, etcd frozen, on the shared client.
  private record Frozen(LeaderElector pilot, List<LeaderElector> others, ColdLane lane) {}

  // frozenLane freezes etcd, starts one elector on key and, once its grant went, n more, and
  // waits until all n grants wait in the lane.
  private Frozen frozenLane(String key, int n, int ttlSeconds) {
    ETCD.cluster().member(0).pause();
    LeaderElector pilot = start(key, 1, ttlSeconds).get(0);
    ColdLane lane = ColdLane.of(shared, key);
    await().atMost(Duration.ofSeconds(5)).until(lane::piloting); // the first elector's grant went
    List<LeaderElector> others = start(key, n, ttlSeconds);
    await().atMost(Duration.ofSeconds(5)).until(() -> lane.waiting() == n);
    return new Frozen(pilot, others, lane);
  }

  private static void closeAll(List<LeaderElector> list, int seconds) throws Exception {
    CompletableFuture.allOf(list.stream().map(e -> e.closeAsync().toCompletableFuture())
        .toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
  }

  @Test
  void aHerdOnOneClientSendsThePilotsGrantAloneAndElectsOne() throws Exception {
    // Frozen, the pilot's grant is not answered: every other cold grant waits for it.
    ColdLane lane = frozenLane("/cold-lane/herd", 199, 10).lane();
    assertFalse(lane.open());
    ETCD.cluster().member(0).resume();
    await().atMost(Duration.ofSeconds(30)).until(this::everyoneKnowsOneLeader);
    assertTrue(lane.open());
    assertEquals(0, lane.waiting());
    assertEquals(1, electors.stream().filter(LeaderElector::isLeader).count());
  }

  @Test
  void aPilotThatClosesLetsTheOthersGo() throws Exception {
    Frozen f = frozenLane("/cold-lane/pilot-closes", 20, 10);
    f.pilot().closeAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertTrue(f.lane().open());
    ETCD.cluster().member(0).resume();
    await().atMost(Duration.ofSeconds(30)).until(() -> f.others().stream().anyMatch(LeaderElector::isLeader));
  }

  @Test
  void electorsClosedWhileTheirGrantsWaitLeaveNoLeaseBehind() throws Exception {
    List<Long> before = ETCD.cluster().leaseIds();
    // A TTL far longer than the test: a lease left behind would still be there at its end.
    Frozen f = frozenLane("/cold-lane/closed", 100, 60);
    // Closed while etcd is frozen: their grants are never sent.
    closeAll(f.others(), 30);
    ETCD.cluster().member(0).resume();
    await().atMost(Duration.ofSeconds(30)).until(f.pilot()::isLeader);
    assertTrue(f.lane().open());
    f.pilot().close();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      List<Long> left = new ArrayList<>(ETCD.cluster().leaseIds());
      left.removeAll(before);
      assertEquals(List.of(), left, "leases left behind");
    });
    log.info("closed {} electors whose cold grants waited for the pilot: no lease left behind", f.others().size());
  }

  private boolean everyoneKnowsOneLeader() {
    Optional<LeaderElector> leader = electors.stream().filter(LeaderElector::isLeader).findFirst();
    if (leader.isEmpty()) {
      return false;
    }
    long token = leader.get().leadership().orElseThrow().fencingToken();
    return electors.stream().allMatch(e -> e.currentLeader().map(l -> l.fencingToken() == token).orElse(false));
  }
}
