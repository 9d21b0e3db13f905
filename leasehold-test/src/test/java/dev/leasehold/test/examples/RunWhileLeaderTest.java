package dev.leasehold.test.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.test.VirtualElector;
import dev.leasehold.test.VirtualStore;
import dev.leasehold.test.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Example of docs/testing.md: {@code runWhileLeader} on virtual time, with core's own
 * implementation (interrupt at the term's end or {@code grace} before the local deadline, the
 * report of a task that ignores it), on a 5 s TTL that passes in milliseconds of real time.
 */
class RunWhileLeaderTest {
  private static final Duration GRACE = Duration.ofMillis(500);
  private final long realStart = System.nanoTime();
  private final VirtualTime time = VirtualTime.create();
  private final VirtualStore store = VirtualStore.create(time);
  private final VirtualElector a = store.elector().electionKey("/jobs/export").candidateId("a")
      .leaseTtl(Duration.ofSeconds(5)).build();

  @AfterEach
  void close() {
    store.close();
    Duration real = Duration.ofNanos(System.nanoTime() - realStart);
    assertTrue(real.compareTo(Duration.ofSeconds(1)) < 0, "took " + real + " of real time");
  }

  /** cutOffIn partitions {@code a} from the store {@code after} from now, for a minute. */
  private void cutOffIn(Duration after) {
    a.executor().schedule(() -> store.faults().partition(a, Duration.ofMinutes(1)),
        after.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aTaskThatCompletesReturnsItsValueAndItsTermIsResigned() throws Exception {
    a.start();
    LeaderTaskOutcome<String> out = a.runWhileLeader(term -> {
      a.sleep(Duration.ofSeconds(20)); // four TTLs: the renewals keep the term
      return "exported " + term.fencingToken();
    }, GRACE);
    assertEquals("exported " + out.leadership().fencingToken(), out.value().orElseThrow());
    assertTrue(out.interruption().isEmpty());
    assertFalse(out.ignoredInterrupt());
    assertTrue(out.resigned(), "a term nobody works in is resigned");
    assertFalse(a.isLeader());
    assertTrue(time.elapsed().compareTo(Duration.ofSeconds(20)) >= 0, time.elapsed().toString());
  }

  @Test
  void aTaskThatStopsOnItsInterruptStopsGraceBeforeTheLocalDeadline() throws Exception {
    a.start();
    cutOffIn(Duration.ofSeconds(3));
    List<Duration> leftAtStop = new ArrayList<>();
    LeaderTaskOutcome<Void> out = a.runWhileLeader(term -> {
      try {
        while (true) {
          term.heartbeat();
          a.sleep(Duration.ofMillis(100));
        }
      } finally {
        leftAtStop.add(term.timeLeft());
      }
    }, GRACE);
    assertEquals(Interruption.DEADLINE_NEAR, out.interruption().orElseThrow());
    assertInstanceOf(InterruptedException.class, out.failure().orElseThrow());
    assertFalse(out.ignoredInterrupt());
    // It stopped at its interrupt, grace before the deadline, with the term still valid.
    Duration left = leftAtStop.get(0);
    assertTrue(left.compareTo(GRACE) <= 0 && left.compareTo(GRACE.minusMillis(50)) > 0, left.toString());
    assertTrue(out.resigned(), "the term it stopped in was resigned");
    assertTrue(time.elapsed().compareTo(Duration.ofSeconds(8)) < 0, time.elapsed().toString());
  }

  @Test
  void aTaskThatIgnoresItsInterruptIsReportedAndWaitedFor() throws Exception {
    a.start();
    cutOffIn(Duration.ofSeconds(3));
    LeaderTaskOutcome<String> out = a.runWhileLeader(term -> {
      while (true) {
        try {
          a.sleep(Duration.ofMillis(100));
        } catch (InterruptedException first) {
          for (int i = 0; i < 100; i++) { // ten more seconds, whatever happens
            try {
              a.sleep(Duration.ofMillis(100));
            } catch (InterruptedException again) {
              // ignored, which is the point
            }
          }
          return "finished late";
        }
      }
    }, GRACE);
    assertEquals(Interruption.DEADLINE_NEAR, out.interruption().orElseThrow());
    assertTrue(out.ignoredInterrupt(), "reported: it ran on past its grace");
    assertEquals("finished late", out.value().orElseThrow());
    assertFalse(out.resigned(), "the term was over before the task returned");
  }

  @Test
  void aSimulatedThreadOfTheInstanceMayCallIt() {
    a.start();
    CompletableFuture<LeaderTaskOutcome<Integer>> result = new CompletableFuture<>();
    a.thread("caller", () -> {
      try {
        result.complete(a.runWhileLeader(term -> 42));
      } catch (InterruptedException e) {
        result.completeExceptionally(e);
      }
    });
    assertEquals(42, time.await(result, Duration.ofSeconds(10)).value().orElseThrow());
  }

  @Test
  void codeTheTimeRunsMayNotCallIt() {
    a.start();
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    a.executor().execute(() -> thrown.complete(
        assertThrows(IllegalStateException.class, () -> a.runWhileLeader(term -> 1))));
    assertTrue(time.await(thrown, Duration.ofSeconds(1)).getMessage()
        .startsWith("runWhileLeader waits while its task runs"));
  }
}
