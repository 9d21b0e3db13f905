package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LeaderElector#health()} on the local backend: role, leader, renewal age, reachability. */
class LocalHealthTest {
  private static final Duration SOON = Duration.ofSeconds(5);

  private final LocalStore store = LocalStore.create();
  private final Electors group = new Electors(store);

  @AfterEach
  void closeEverything() {
    group.close();
    store.close();
  }

  @Test
  void aLeaderAndAFollowerAreBothHealthyAndAgreeOnTheLeader() {
    LeaderElector a = group.add("a", b -> b);
    ElectorHealth before = a.health();
    assertEquals(ElectorState.FOLLOWER, before.state());
    assertFalse(before.running(), "not started yet");
    assertFalse(before.healthy(), "an elector that was never started is not healthy");
    assertEquals("local", before.backend());

    a.start();
    group.add("b", b -> b).start();
    LeaderElector leader = group.awaitLeader(0, SOON);
    LeaderElector follower = group.all.stream().filter(e -> e != leader).findFirst().orElseThrow();
    LeaderInfo info = leader.currentLeader().orElseThrow();

    ElectorHealth lh = leader.health();
    assertEquals(ElectorState.MASTER, lh.state());
    assertTrue(lh.isLeader());
    assertTrue(lh.healthy(), lh.toString());
    assertEquals(Optional.of(info), lh.leader());
    assertEquals(Optional.of(info.candidateId()), lh.leaderId());
    assertEquals(info.fencingToken(), lh.fencingToken().orElseThrow());
    assertTrue(lh.storeReachable());
    assertEquals(Optional.empty(), lh.storeFailure());
    assertEquals(Optional.empty(), lh.fallback(), "a plain elector never falls back");
    Duration since = lh.sinceRenewal().orElseThrow();
    assertTrue(since.compareTo(leader.config().leaseTtl()) < 0, "renewed within the TTL: " + since);

    Electors.waiting(SOON).until(() -> follower.health().leader().equals(Optional.of(info)));
    ElectorHealth fh = follower.health();
    assertEquals(ElectorState.FOLLOWER, fh.state());
    assertTrue(fh.healthy(), "a follower is healthy: " + fh);
    assertFalse(fh.isLeader());
    // Standby leases are on by default: the follower's lease is renewed too.
    Electors.waiting(SOON).until(() -> follower.health().sinceRenewal().isPresent());
  }

  @Test
  void anUnreachableStoreMakesEveryElectorUnhealthyWithTheReasonUntilItRecovers() {
    group.start(2, b -> b.leaseTtl(Duration.ofSeconds(3)));
    LeaderElector leader = group.awaitLeader(0, SOON);
    int seen = group.events(leader).size();

    store.faults().makeUnavailable();
    group.awaitEvent(leader, Cause.STORE_UNAVAILABLE, seen, SOON);
    for (LeaderElector e : group.all) {
      Electors.waiting(SOON).until(() -> !e.health().storeReachable());
      ElectorHealth h = e.health();
      assertFalse(h.healthy(), h.toString());
      assertEquals(Optional.of(LocalFaults.UNAVAILABLE), h.storeFailure());
    }
    // No renewal is confirmed while the store is away: the leader's renewal ages past its
    // renewal interval (TTL/6).
    Duration renewEvery = leader.config().leaseTtl().dividedBy(6);
    Electors.waiting(SOON).until(
        () -> leader.health().sinceRenewal().map(d -> d.compareTo(renewEvery) > 0).orElse(true));

    store.faults().makeAvailable();
    LeaderElector next = group.awaitLeader(0, SOON);
    for (LeaderElector e : group.all) {
      Electors.waiting(SOON).until(() -> e.health().healthy());
      assertEquals(Optional.empty(), e.health().storeFailure());
    }
    assertTrue(next.health().sinceRenewal().isPresent());
  }

  @Test
  void aClosedElectorIsStoppedNotRunningAndHoldsNoLease() {
    LeaderElector a = group.add("a", b -> b);
    a.start();
    group.awaitLeader(0, SOON);
    a.close();
    ElectorHealth h = a.health();
    assertEquals(ElectorState.STOPPED, h.state());
    assertFalse(h.running());
    assertFalse(h.healthy());
    assertEquals(Optional.empty(), h.sinceRenewal());
    assertEquals(Optional.empty(), h.leader());
  }

  @Test
  void theRecordRejectsAFailureReasonOnAReachableStore() {
    try {
      new ElectorHealth(ElectorState.FOLLOWER, true, "local", Optional.empty(), Optional.empty(),
          true, Optional.of("boom"), Optional.empty());
      throw new AssertionError("accepted a failure on a reachable store");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("storeFailure"), expected.getMessage());
    }
    ElectorHealth fine = new ElectorHealth(ElectorState.FOLLOWER, true, "local", Optional.empty(),
        Optional.empty(), true, Optional.empty(), Optional.empty());
    assertTrue(fine.healthy());
    assertFalse(fine.withFallback(Optional.of("local")).healthy(), "fallen back is not healthy");
  }
}
