package dev.leasehold.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** VirtualTime and the instances' virtual executors. */
class VirtualTimeTest {
  private final VirtualTime time = VirtualTime.create();
  private final VirtualStore store = VirtualStore.create(time);
  private final ScheduledExecutorService executor = store.elector().electionKey("/t").build().executor();

  @Test
  void advanceRunsWhatIsDueInTimeOrderAndLeavesTheTimeThatMuchLater() {
    List<String> ran = new ArrayList<>();
    executor.schedule(() -> ran.add("b at " + time.elapsed().toMillis()), 200, TimeUnit.MILLISECONDS);
    executor.schedule(() -> ran.add("a at " + time.elapsed().toMillis()), 100, TimeUnit.MILLISECONDS);
    executor.schedule(() -> ran.add("c"), 2, TimeUnit.SECONDS);
    time.advance(Duration.ofSeconds(1));
    assertEquals(List.of("a at 100", "b at 200"), ran);
    assertEquals(Duration.ofSeconds(1), time.elapsed());
    assertEquals(VirtualTime.EPOCH.plusSeconds(1), time.clock().instant());
  }

  @Test
  void runUntilStopsWhenTheConditionHoldsOrAfterItsMaximum() {
    List<Integer> ticks = new ArrayList<>();
    ScheduledFuture<?> f = executor.scheduleAtFixedRate(() -> ticks.add(ticks.size()), 0, 100, TimeUnit.MILLISECONDS);
    assertTrue(time.runUntil(() -> ticks.size() == 5, Duration.ofSeconds(10)));
    assertTrue(time.elapsed().compareTo(Duration.ofMillis(401)) < 0, "stopped at the fifth tick: " + time.elapsed());
    f.cancel(false);
    assertFalse(time.runUntil(() -> ticks.size() == 6, Duration.ofSeconds(1)), "a cancelled task runs no more");
    assertEquals(5, ticks.size());
  }

  @Test
  void codeTheTimeRunsCannotRunItInTurn() {
    List<Throwable> thrown = new ArrayList<>();
    executor.execute(() -> {
      try {
        time.advance(Duration.ofSeconds(1));
      } catch (IllegalStateException e) {
        thrown.add(e);
      }
    });
    time.advance(Duration.ofMillis(10));
    assertEquals(1, thrown.size());
    assertTrue(thrown.get(0).getMessage().startsWith("VirtualTime is already running events"), thrown.get(0).getMessage());
  }

  @Test
  void aShutDownExecutorRunsNothingMoreAndRefusesNewTasks() {
    List<String> ran = new ArrayList<>();
    executor.schedule(() -> ran.add("late"), 1, TimeUnit.SECONDS);
    executor.shutdown();
    time.advance(Duration.ofSeconds(2));
    assertTrue(ran.isEmpty());
    assertTrue(executor.isTerminated());
    assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> executor.execute(() -> { }));
  }

  @Test
  void awaitReturnsTheValueOrSaysHowLongItWaited() {
    CompletableFuture<String> f = new CompletableFuture<>();
    executor.schedule(() -> f.complete("done"), 3, TimeUnit.SECONDS);
    AssertionError e = assertThrows(AssertionError.class, () -> time.await(f, Duration.ofSeconds(1)));
    assertEquals("not complete after PT1S of virtual time", e.getMessage());
    assertEquals("done", time.await(f, Duration.ofSeconds(5)));
  }

  @Test
  void aNegativeDurationIsRefusedWithItsName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> time.runUntil(() -> false, Duration.ofSeconds(-1)));
    assertEquals("max must be >= 0, but was PT-1S", e.getMessage());
  }
}
