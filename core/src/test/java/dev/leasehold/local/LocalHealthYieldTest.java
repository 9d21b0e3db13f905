package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Yield when unhealthy through the runtime, on the local backend: the check runs on a thread of
 * its own, a flap shorter than the threshold moves nothing, an unhealthy leader hands over to a
 * healthy candidate (UNHEALTHY), a lone unhealthy leader keeps its term and says so in
 * health(), and a check that flaps faster than its threshold moves nothing.
 */
class LocalHealthYieldTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private final LocalStore store = new LocalStore(System::nanoTime, null);
  private final Electors electors = new Electors(store);
  private final Set<String> checkThreads = ConcurrentHashMap.newKeySet();

  @AfterEach
  void close() {
    electors.close();
    store.close();
  }

  private LeaderElector checked(String id, AtomicBoolean healthy, AtomicInteger asked) {
    return electors.add(id, b -> b.healthCheck(() -> {
      checkThreads.add(Thread.currentThread().getName());
      asked.incrementAndGet();
      return healthy.get();
    }).healthCheckInterval(Duration.ofMillis(20)).healthCheckThreshold(3));
  }

  @Test
  void anUnhealthyLeaderYieldsToAHealthyCandidateAndALoneOneKeepsItsTerm() {
    AtomicBoolean aOk = new AtomicBoolean(true);
    AtomicInteger aAsked = new AtomicInteger();
    LeaderElector a = checked("a", aOk, aAsked);
    a.start();
    Electors.waiting(WAIT).until(a::isLeader);

    // Alone and unhealthy: it keeps its term, and says so.
    aOk.set(false);
    Electors.waiting(WAIT).until(() -> a.health().unhealthy().isPresent());
    assertTrue(a.isLeader());
    assertTrue(a.health().unhealthy().orElseThrow().contains("still leading: no healthy candidate"),
        a.health().toString());

    // A healthy candidate joins the queue: the leader yields to it.
    AtomicBoolean bFlaps = new AtomicBoolean();
    AtomicInteger bAsked = new AtomicInteger();
    LeaderElector b = electors.add("b", x -> x.healthCheck(() -> {
      int n = bAsked.incrementAndGet();
      return !bFlaps.get() || n % 2 == 0;
    }).healthCheckInterval(Duration.ofMillis(20)).healthCheckThreshold(3));
    b.start();
    Electors.waiting(WAIT).until(b::isLeader);
    assertFalse(a.isLeader());
    // isLeader() shows a change before the dispatcher delivers its event: wait for the event.
    Electors.waiting(WAIT).until(
        () -> electors.events(a).stream().map(LeadershipEvent::cause).anyMatch(Cause.UNHEALTHY::equals));
    assertTrue(a.health().unhealthy().orElseThrow().contains("out of the queue"), a.health().toString());
    assertTrue(checkThreads.stream().allMatch(t -> t.startsWith("leasehold-health-")), checkThreads.toString());

    // A check that flaps (every other answer bad) never gives 3 bad answers in a row: nothing moves.
    aOk.set(true);
    Electors.waiting(WAIT).until(() -> a.health().unhealthy().isEmpty());
    int from = bAsked.get();
    bFlaps.set(true);
    Electors.waiting(WAIT).until(() -> {
      assertTrue(b.health().unhealthy().isEmpty(), b.health().toString());
      return bAsked.get() > from + 30;
    });
    assertTrue(b.isLeader());
    assertEquals(1, electors.leaders().size());
  }
}
