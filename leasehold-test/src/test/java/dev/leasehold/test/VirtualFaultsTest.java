package dev.leasehold.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one-call faults, each seen by the real elector as in production. */
class VirtualFaultsTest {
  private static final String KEY = "/faults";
  private final VirtualTime time = VirtualTime.create();
  private final VirtualStore store = VirtualStore.create(time);
  private final VirtualElector a = store.elector().electionKey(KEY).candidateId("a").leaseTtl(Duration.ofSeconds(2)).build();
  private final VirtualElector b = store.elector().electionKey(KEY).candidateId("b").leaseTtl(Duration.ofSeconds(2)).build();

  @AfterEach
  void close() {
    store.close();
  }

  private Leadership aLeads() {
    a.start();
    Leadership term = a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
    b.start();
    time.advance(Duration.ofSeconds(1));
    return term;
  }

  private LeadershipEvent lossOf(Leadership term) {
    return time.await(term.whenLost(), Duration.ofSeconds(30));
  }

  @Test
  void aPartitionedLeaderStepsDownAtItsDeadlineAndTheOtherTakesOver() {
    Leadership first = aLeads();
    store.faults().partition(a, Duration.ofSeconds(20));
    assertEquals(Cause.LEASE_EXPIRED_LOCALLY, lossOf(first).cause());
    Leadership second = b.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
    assertTrue(second.fencingToken() > first.fencingToken());
    time.advance(Duration.ofSeconds(25)); // healed
    assertEquals("b", a.currentLeader().orElseThrow().candidateId(), "a knows its successor once healed");
  }

  @Test
  void aCrashedLeaderReleasesNothingAndIsReplacedWhenItsLeaseExpires() {
    Leadership first = aLeads();
    store.faults().crash(a);
    Duration crashedAt = time.elapsed();
    Leadership second = b.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
    Duration gap = time.elapsed().minus(crashedAt);
    // The lease ran out within a TTL (2 s) of the last renewal, at most 2 s/3 before the crash.
    assertTrue(gap.compareTo(Duration.ofMillis(1300)) > 0 && gap.compareTo(Duration.ofSeconds(3)) < 0, gap.toString());
    assertTrue(second.fencingToken() > first.fencingToken());
    a.close();
    assertEquals("b", store.local().leaderOf(KEY).orElseThrow().candidateId());
  }

  @Test
  void anExpiredLeaseAndADeletedKeyEndTheTermWithTheirCause() {
    Leadership first = aLeads();
    assertTrue(store.faults().expireLease(KEY));
    assertEquals(Cause.LEASE_REVOKED, lossOf(first).cause());
    Leadership second = time.await(b.whenLeading(), Duration.ofSeconds(10));
    assertTrue(store.faults().deleteKey(KEY));
    assertEquals(Cause.KEY_DELETED, lossOf(second).cause());
  }

  @Test
  void anOutageEndsByItself() {
    Leadership first = aLeads();
    store.faults().outage(Duration.ofSeconds(5));
    assertEquals(Cause.LEASE_EXPIRED_LOCALLY, lossOf(first).cause());
    assertTrue(time.runUntil(() -> a.isLeader() || b.isLeader(), Duration.ofSeconds(10)), "a leader again after it");
  }

  @Test
  void aSlowClockWithinTheDriftBoundKeepsTheTermInsideTheStoresLease() {
    Leadership first = aLeads();
    store.faults().drift(a, 1 - a.config().maxDriftRate() * 0.9);
    store.faults().outage(Duration.ofSeconds(10));
    assertTrue(time.runUntil(() -> !first.isValid(), Duration.ofSeconds(10)));
    assertTrue(store.local().leaderOf(KEY).isPresent(), "the term ended before the store's expiry");
  }

  @Test
  void theWatchdogResignsATermWhoseWorkStoppedBeatingOnVirtualTime() {
    VirtualElector c = store.elector().electionKey("/watched").candidateId("c").leaseTtl(Duration.ofSeconds(2))
        .workStallTimeout(Duration.ofSeconds(3)).build();
    c.start();
    Leadership term = c.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
    java.util.concurrent.ScheduledFuture<?> beat = c.executor().scheduleAtFixedRate(
        term::heartbeat, 0, 1, java.util.concurrent.TimeUnit.SECONDS);
    time.advance(Duration.ofSeconds(30));
    assertTrue(term.isValid(), "a beating term holds");
    beat.cancel(false); // the work hangs
    Duration hung = time.elapsed();
    LeadershipEvent lost = lossOf(term);
    assertEquals(Cause.WORK_STALLED, lost.cause());
    Duration after = time.elapsed().minus(hung);
    // The last heartbeat came within the second before the hang; the watchdog fires 3 s after it.
    assertTrue(after.compareTo(Duration.ofSeconds(2)) > 0 && after.compareTo(Duration.ofMillis(3500)) < 0, after.toString());
  }

  @Test
  void aDriftRateMustBePositive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.faults().drift(a, 0));
    assertEquals("rate must be > 0 and finite, but was 0.0", e.getMessage());
  }
}
