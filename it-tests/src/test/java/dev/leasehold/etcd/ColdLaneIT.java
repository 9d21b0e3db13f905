package dev.leasehold.etcd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.it.EtcdClusterExtension;
import dev.leasehold.it.EtcdMember;
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
    CompletableFuture.allOf(electors.stream().map(e -> e.closeAsync().toCompletableFuture())
        .toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
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

  @Test
  void aHerdOnOneClientSendsThePilotsGrantAloneAndElectsOne() throws Exception {
    String key = "/cold-lane/herd";
    EtcdMember member = ETCD.cluster().member(0);
    member.pause();
    start(key, 1, 10);
    ColdLane lane = ColdLane.of(shared, key);
    await().atMost(Duration.ofSeconds(5)).until(lane::piloting); // the first elector's grant went
    start(key, 199, 10);
    // Frozen, the pilot's grant is not answered: every other cold grant waits for it.
    await().atMost(Duration.ofSeconds(5)).until(() -> lane.waiting() == 199);
    assertFalse(lane.open());
    member.resume();
    await().atMost(Duration.ofSeconds(30)).until(this::everyoneKnowsOneLeader);
    assertTrue(lane.open());
    assertEquals(0, lane.waiting());
    assertEquals(1, electors.stream().filter(LeaderElector::isLeader).count());
  }

  @Test
  void aPilotThatClosesLetsTheOthersGo() throws Exception {
    String key = "/cold-lane/pilot-closes";
    EtcdMember member = ETCD.cluster().member(0);
    member.pause();
    LeaderElector pilot = start(key, 1, 10).get(0);
    ColdLane lane = ColdLane.of(shared, key);
    await().atMost(Duration.ofSeconds(5)).until(lane::piloting); // the first elector's grant went
    List<LeaderElector> others = start(key, 20, 10);
    await().atMost(Duration.ofSeconds(5)).until(() -> lane.waiting() == others.size());
    pilot.closeAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertTrue(lane.open());
    member.resume();
    await().atMost(Duration.ofSeconds(30)).until(() -> others.stream().anyMatch(LeaderElector::isLeader));
  }

  @Test
  void electorsClosedWhileTheirGrantsWaitLeaveNoLeaseBehind() throws Exception {
    String key = "/cold-lane/closed";
    EtcdMember member = ETCD.cluster().member(0);
    List<Long> before = ETCD.cluster().leaseIds();
    member.pause();
    // A TTL far longer than the test: a lease left behind would still be there at its end.
    LeaderElector pilot = start(key, 1, 60).get(0);
    ColdLane lane = ColdLane.of(shared, key);
    await().atMost(Duration.ofSeconds(5)).until(lane::piloting); // the first elector's grant went
    List<LeaderElector> waiting = start(key, 100, 60);
    await().atMost(Duration.ofSeconds(5)).until(() -> lane.waiting() == waiting.size());
    // Closed while etcd is frozen: their grants are never sent.
    CompletableFuture.allOf(waiting.stream().map(e -> e.closeAsync().toCompletableFuture())
        .toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    member.resume();
    await().atMost(Duration.ofSeconds(30)).until(pilot::isLeader);
    assertTrue(lane.open());
    pilot.close();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      List<Long> left = new ArrayList<>(ETCD.cluster().leaseIds());
      left.removeAll(before);
      assertEquals(List.of(), left, "leases left behind");
    });
    log.info("closed {} electors whose cold grants waited for the pilot: no lease left behind", waiting.size());
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
