package dev.leasehold.local;

import dev.leasehold.LeaderElector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each fault of {@link LocalFaults} produces the event its Javadoc table documents. */
class LocalFaultsTest {
  private static final Duration SOON = Duration.ofSeconds(5);

  private final LocalStore store = LocalStore.create();
  private Electors group;

  @AfterEach
  void closeEverything() {
    if (group != null) {
      group.close();
    }
    assertEquals(0, store.leaseCount(), "no lease left after every elector closed");
    store.close();
  }

  private LeaderElector threeElectorsAndTheirLeader(Duration ttl) {
    group = new Electors(store).start(3, b -> b.leaseTtl(ttl));
    return group.awaitLeader(0, SOON);
  }

  private List<LeaderElector> followersOf(LeaderElector leader) {
    return group.all.stream().filter(e -> e != leader).toList();
  }

  @Test
  void expiringTheLeadersLeaseReportsLeaseRevokedAndAnotherTermBegins() {
    LeaderElector leader = threeElectorsAndTheirLeader(Duration.ofSeconds(2));
    Leadership term = leader.leadership().orElseThrow();
    Map<LeaderElector, Integer> seen = new HashMap<>();
    group.all.forEach(e -> seen.put(e, group.events(e).size()));

    assertTrue(store.faults().expireLeaseOf(Electors.KEY));

    LeadershipEvent lost = group.awaitEvent(leader, Cause.LEASE_REVOKED, seen.get(leader), SOON);
    assertEquals(ElectorState.MASTER, lost.from());
    assertEquals(ElectorState.FOLLOWER, lost.to());
    assertFalse(term.isValid());
    assertFalse(store.hasLease(term.leaseId()), "the expired lease is gone");
    LeaderElector next = group.awaitLeader(term.fencingToken(), SOON);
    long token = next.leadership().orElseThrow().fencingToken();
    for (LeaderElector f : followersOf(leader)) {
      if (f != next) {
        LeadershipEvent changed = group.awaitEvent(f, Cause.LEADER_CHANGED, seen.get(f), SOON);
        assertEquals(token, changed.fencingToken().orElseThrow());
      }
    }
    // The old leader learns of its successor in its loss event or a LEADER_CHANGED after it.
    assertEquals(token, leader.currentLeader().orElseThrow().fencingToken());
  }

  @Test
  void deletingTheKeyReportsKeyDeletedAndTheOldLeaseIsReleased() {
    LeaderElector leader = threeElectorsAndTheirLeader(Duration.ofSeconds(2));
    Leadership term = leader.leadership().orElseThrow();
    int seen = group.events(leader).size();

    assertTrue(store.faults().deleteKey(Electors.KEY));

    LeadershipEvent lost = group.awaitEvent(leader, Cause.KEY_DELETED, seen, SOON);
    assertEquals(ElectorState.MASTER, lost.from());
    assertEquals(ElectorState.FOLLOWER, lost.to());
    group.awaitLeader(term.fencingToken(), SOON);
    // The old leader gives its lease back once it has stepped down.
    Electors.waiting(SOON).until(() -> !store.hasLease(term.leaseId()));
  }

  @Test
  void anOutageLongerThanTheDeadlineReportsUnavailableThenExpiredLocallyThenRecovered() {
    LeaderElector leader = threeElectorsAndTheirLeader(Duration.ofSeconds(1));
    long token = leader.leadership().orElseThrow().fencingToken();
    int seen = group.events(leader).size();

    store.faults().makeUnavailable();

    LeadershipEvent down = group.awaitEvent(leader, Cause.STORE_UNAVAILABLE, seen, SOON);
    assertEquals(ElectorState.MASTER, down.from());
    assertEquals(ElectorState.MASTER, down.to());
    assertEquals(Optional.of(LocalFaults.UNAVAILABLE), down.reason(), "the event names the failure");
    LeadershipEvent expired = group.awaitEvent(leader, Cause.LEASE_EXPIRED_LOCALLY, seen, SOON);
    assertEquals(ElectorState.FOLLOWER, expired.to());
    assertTrue(down.nanoTime() - expired.nanoTime() < 0, "unavailable is reported first");
    for (LeaderElector f : followersOf(leader)) {
      assertEquals(ElectorState.FOLLOWER, group.awaitEvent(f, Cause.STORE_UNAVAILABLE, SOON).to());
    }
    assertTrue(group.leaders().isEmpty(), "nobody leads while the store is unreachable");

    store.faults().makeAvailable();

    for (LeaderElector e : group.all) {
      group.awaitEvent(e, Cause.STORE_RECOVERED, SOON);
    }
    group.awaitLeader(token, SOON);
  }

  @Test
  void aShortOutageCostsNoTerm() {
    LeaderElector leader = threeElectorsAndTheirLeader(Duration.ofSeconds(2));
    Leadership term = leader.leadership().orElseThrow();
    int seen = group.events(leader).size();

    store.faults().makeUnavailable();
    group.awaitEvent(leader, Cause.STORE_UNAVAILABLE, seen, SOON);
    store.faults().makeAvailable();

    LeadershipEvent back = group.awaitEvent(leader, Cause.STORE_RECOVERED, seen, SOON);
    assertEquals(ElectorState.MASTER, back.to());
    assertTrue(term.isValid());
    assertEquals(Optional.empty(), back.reason(), "only STORE_UNAVAILABLE carries a reason");
    assertEquals(List.of(Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED),
        group.causes(leader).subList(seen, group.causes(leader).size()));
  }

  @Test
  void runFencedRefusesATermTheStoreHasEnded() {
    LeaderElector leader = threeElectorsAndTheirLeader(Duration.ofSeconds(2));
    Leadership term = leader.leadership().orElseThrow();
    AtomicInteger writes = new AtomicInteger();

    assertTrue(store.runFenced(term, writes::incrementAndGet));
    store.faults().deleteKey(Electors.KEY);
    // At once, before the old leader has heard of the deletion.
    assertFalse(store.runFenced(term, writes::incrementAndGet));
    assertFalse(store.isCurrentTerm(term));

    LeaderElector next = group.awaitLeader(term.fencingToken(), SOON);
    assertTrue(store.runFenced(next.leadership().orElseThrow(), writes::incrementAndGet));
    assertEquals(2, writes.get());

    store.faults().makeUnavailable();
    IllegalStateException down =
        assertThrows(IllegalStateException.class, () -> store.isCurrentTerm(term));
    assertEquals(LocalFaults.UNAVAILABLE, down.getMessage());
    store.faults().makeAvailable();
  }

  @Test
  void faultsOnAnAbsentKeyOrLeaseChangeNothing() {
    assertFalse(store.faults().deleteKey("/absent"));
    assertFalse(store.faults().expireLeaseOf("/absent"));
    assertFalse(store.faults().expireLease(12345));
  }
}
