package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The leader-work watchdog ({@code workStallTimeout}) and term-scoped resign on the local backend. */
class LocalWatchdogTest {
  private static final Duration SOON = Duration.ofSeconds(5);
  private static final Duration STALL = Duration.ofMillis(300);

  private final LocalStore store = LocalStore.create();
  private final Electors group = new Electors(store);
  private final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void closeEverything() {
    beats.shutdownNow();
    group.close();
    assertEquals(0, store.leaseCount(), "no lease left after every elector closed");
    store.close();
  }

  /** heartbeatWhileLeading makes {@code e}'s work beat every 20 ms while it leads. */
  private void heartbeatWhileLeading(LeaderElector e) {
    beats.scheduleWithFixedDelay(
        () -> e.leadership().ifPresent(Leadership::heartbeat), 0, 20, TimeUnit.MILLISECONDS);
  }

  @Test
  void aLeaderWhoseWorkStopsBeatingResignsWithWorkStalledAndAnotherTakesOver() throws Exception {
    LeaderElector silent = group.add("silent", b -> b.workStallTimeout(STALL));
    silent.start();
    group.awaitLeader(0, SOON);
    Leadership term = silent.leadership().orElseThrow();
    LeaderElector beating = group.add("beating", b -> b.workStallTimeout(STALL));
    heartbeatWhileLeading(beating);
    beating.start();

    LeadershipEvent stalled = group.awaitEvent(silent, Cause.WORK_STALLED, SOON);
    assertTrue(stalled.isLost());
    assertEquals(ElectorState.MASTER, stalled.from());
    assertEquals(ElectorState.FOLLOWER, stalled.to());
    assertFalse(term.isValid());
    assertEquals(Cause.WORK_STALLED, term.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS).cause());
    LeaderElector next = group.awaitLeader(term.fencingToken(), SOON);
    assertSame(beating, next, "the stalled instance sits out the hold-off; the other takes over");
    assertTrue(Cause.WORK_STALLED.isLoss());
  }

  @Test
  void heartbeatsKeepTheTermForManyTimeouts() {
    LeaderElector e = group.add("a", b -> b.workStallTimeout(STALL));
    heartbeatWhileLeading(e);
    e.start();
    group.awaitLeader(0, SOON);
    Leadership term = e.leadership().orElseThrow();
    Electors.waiting(SOON).during(STALL.multipliedBy(5)).until(term::isValid);
    assertFalse(group.find(e, Cause.WORK_STALLED).isPresent(), group.causes(e).toString());
  }

  @Test
  void theWatchdogIsOffByDefault() {
    LeaderElector e = group.add("a", b -> b);
    assertEquals(java.util.Optional.empty(), e.config().workStallTimeout());
    e.start();
    group.awaitLeader(0, SOON);
    Leadership term = e.leadership().orElseThrow();
    Electors.waiting(SOON).during(STALL.multipliedBy(3)).until(term::isValid);
  }

  @Test
  void aTermsResignEndsThatTermButNeverALaterOne() throws Exception {
    LeaderElector e = group.add("a", b -> b.resignHoldoff(Duration.ZERO));
    e.start();
    group.awaitLeader(0, SOON);
    Leadership first = e.leadership().orElseThrow();
    first.resign();
    assertEquals(Cause.RESIGNED, first.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS).cause());
    LeaderElector again = group.awaitLeader(first.fencingToken(), SOON);
    Leadership second = again.leadership().orElseThrow();
    assertNotSame(first, second);
    first.resign();
    first.heartbeat();
    // whenLeading runs on the event loop after the late resign: the second term survived it.
    Leadership current = e.whenLeading().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertSame(second, current);
    assertTrue(second.isValid());
  }

  @Test
  void workStallTimeoutIsValidatedAndCopiedWithTheConfig() {
    IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
        () -> ElectorConfig.builder().electionKey("k").workStallTimeout(Duration.ofMillis(5)).build());
    assertEquals("workStallTimeout must be >= 10ms, but was 5ms", tooShort.getMessage());
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> ElectorConfig.builder().electionKey("k").workStallTimeout(Duration.ofSeconds(-1)).build());
    assertEquals("workStallTimeout must be > 0, but was -1000ms", negative.getMessage());
    ElectorConfig c = ElectorConfig.builder().electionKey("k").workStallTimeout(Duration.ofSeconds(2)).build();
    assertEquals(Duration.ofSeconds(2), c.workStallTimeout().orElseThrow());
    assertEquals(c.workStallTimeout(), ElectorConfig.builder().config(c).build().workStallTimeout());
    assertTrue(c.toString().contains("workStallTimeout=2s"), c.toString());
  }
}
