package dev.leasehold.test.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.Leadership;
import dev.leasehold.test.VirtualElector;
import dev.leasehold.test.VirtualStore;
import dev.leasehold.test.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * runWhileLeader on virtual time (docs/testing.md): the task runs on a simulated thread of its
 * instance, waits with {@link VirtualElector#sleep}, and is interrupted, reported and resigned by
 * production's rules, with every wait on virtual time; a 5 s TTL and a 30 s outage pass in
 * milliseconds of real time.
 */
class RunWhileLeaderTest {
  private static final String KEY = "/jobs/report";

  private static VirtualElector instance(VirtualStore store, String id) {
    return store.elector().electionKey(KEY).candidateId(id).leaseTtl(Duration.ofSeconds(5)).build();
  }

  @Test
  void aTaskIsInterruptedBeforeItsDeadlineWhenTheStoreGoesAwayAndStopsInTime() throws Exception {
    long realStart = System.nanoTime();
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = instance(store, "a");
      VirtualElector b = instance(store, "b");
      a.start();
      a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      b.start();
      // Three seconds into the term the store goes away for 30 s: no renewal is confirmed again.
      b.executor().schedule(() -> store.faults().outage(Duration.ofSeconds(30)), 3, TimeUnit.SECONDS);
      List<Duration> writes = new ArrayList<>();
      List<Duration> leftAtStop = new ArrayList<>();
      Duration grace = Duration.ofMillis(500);

      LeaderTaskOutcome<Integer> outcome = a.runWhileLeader(term -> {
        try {
          while (true) {
            writes.add(time.elapsed());
            a.sleep(Duration.ofMillis(100)); // an interrupt ends the sleep, as on a real thread
          }
        } finally {
          leftAtStop.add(term.timeLeft());
        }
      }, grace);

      assertEquals(Interruption.DEADLINE_NEAR, outcome.interruption().orElseThrow(),
          "interrupted once only the grace was left before the local deadline");
      assertTrue(outcome.failure().orElseThrow() instanceof InterruptedException);
      assertFalse(outcome.ignoredInterrupt());
      // It stopped at its interrupt, with the grace (less a timer's lateness) left of its term.
      Duration left = leftAtStop.get(0);
      assertTrue(left.compareTo(grace) <= 0 && left.compareTo(grace.minusMillis(50)) > 0, left.toString());
      Leadership term = outcome.leadership();
      Duration last = writes.get(writes.size() - 1);
      assertTrue(time.runUntil(() -> !term.isValid(), Duration.ofSeconds(10)));
      assertTrue(last.compareTo(time.elapsed()) < 0, "the task's last write came before the term ended");
      System.out.printf("runWhileLeader on virtual time: %d writes, the last at %s, interrupted %s;"
          + " %s of virtual time in %d ms of real time%n", writes.size(), last, outcome.interruption().get(),
          time.elapsed(), (System.nanoTime() - realStart) / 1_000_000);
    }
  }

  @Test
  void aTaskThatIgnoresItsInterruptIsReported() throws Exception {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = instance(store, "a");
      a.start();
      a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      a.executor().schedule(() -> store.faults().outage(Duration.ofSeconds(30)), 1, TimeUnit.SECONDS);

      LeaderTaskOutcome<String> outcome = a.runWhileLeader(term -> {
        for (int step = 0; step < 20; step++) {
          try {
            a.sleep(Duration.ofSeconds(1));
          } catch (InterruptedException swallowed) {
            // wrong: it should stop
          }
        }
        return "done late";
      }, Duration.ofMillis(200));

      assertTrue(outcome.ignoredInterrupt(), "still running the grace after its interrupt: reported");
      assertEquals("done late", outcome.value().orElseThrow());
      assertFalse(outcome.resigned(), "the term was over by the time it returned");
    }
  }

  @Test
  void aTaskThatReturnsResignsItsTermAndTheOtherInstanceLeads() throws Exception {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = instance(store, "a");
      VirtualElector b = instance(store, "b");
      a.start();
      a.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      b.start();

      LeaderTaskOutcome<Long> outcome = a.runWhileLeader(term -> {
        a.sleep(Duration.ofSeconds(20)); // four TTLs of work, renewed all along
        return term.fencingToken();
      });

      assertTrue(outcome.resigned(), "a term nobody works in is handed on");
      assertTrue(outcome.interruption().isEmpty());
      assertEquals(outcome.leadership().fencingToken(), outcome.value().orElseThrow());
      assertTrue(b.awaitLeadership(Duration.ofSeconds(10)).isPresent(), "b leads after a resigned");
      assertThrows(IllegalArgumentException.class, () -> b.runWhileLeader(term -> 0, Duration.ofSeconds(2)),
          "grace must be under TTL/3");
    }
  }

  @Test
  void aSimulatedThreadOfTheInstanceMayCallItAndWaitsThere() {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = instance(store, "a");
      a.start();
      CompletableFuture<LeaderTaskOutcome<Integer>> result = new CompletableFuture<>();
      a.thread("caller", () -> {
        try {
          result.complete(a.runWhileLeader(term -> {
            a.sleep(Duration.ofSeconds(1));
            return 42;
          }));
        } catch (InterruptedException e) {
          result.completeExceptionally(e);
        }
      });
      LeaderTaskOutcome<Integer> outcome = time.await(result, Duration.ofSeconds(10));
      assertEquals(42, outcome.value().orElseThrow());
      assertTrue(outcome.resigned());
    }
  }

  @Test
  void codeTheTimeRunsMayNotCallItAndIsToldWhere() {
    VirtualTime time = VirtualTime.create();
    try (VirtualStore store = VirtualStore.create(time)) {
      VirtualElector a = instance(store, "a");
      CompletableFuture<Throwable> thrown = new CompletableFuture<>();
      a.executor().execute(() -> thrown.complete(
          assertThrows(IllegalStateException.class, () -> a.runWhileLeader(term -> 1))));
      assertTrue(time.await(thrown, Duration.ofSeconds(1)).getMessage()
          .startsWith("runWhileLeader waits while its task runs"));
      assertFalse(a.isLeader());
    }
  }
}
