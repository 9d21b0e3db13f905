package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.Leadership;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LeaderElector#runWhileLeader} and the interruptible waits, on the local backend. */
class LocalRunWhileLeaderTest {
  private static final Duration SOON = Duration.ofSeconds(10);

  private final LocalStore store = LocalStore.create();
  private final Electors group = new Electors(store);
  private final AtomicReference<Thread> caller = new AtomicReference<>();

  @AfterEach
  void closeEverything() {
    group.close();
    assertEquals(0, store.leaseCount(), "no lease left after every elector closed");
    store.close();
  }

  /** inBackground runs {@code e.runWhileLeader(task, grace)} on a thread of the test's ({@link #caller}). */
  private <T> CompletableFuture<LeaderTaskOutcome<T>> inBackground(
      LeaderElector e, dev.leasehold.LeaderTask<T> task, Duration grace) {
    CompletableFuture<LeaderTaskOutcome<T>> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(e.runWhileLeader(task, grace));
      } catch (Throwable x) {
        f.completeExceptionally(x);
      }
    }, "test-caller");
    caller.set(t);
    t.start();
    return f;
  }

  @Test
  void theTaskRunsOnItsOwnWorkerWithTheTermAndReturningResignsIt() throws Exception {
    LeaderElector e = group.add("a", b -> b.resignHoldoff(Duration.ZERO));
    e.start();
    AtomicReference<Leadership> seen = new AtomicReference<>();
    LeaderTaskOutcome<String> out = e.runWhileLeader(l -> {
      seen.set(l);
      assertTrue(l.isValid());
      return Thread.currentThread().getName();
    });
    assertTrue(out.value().orElseThrow().startsWith("leasehold-work-a-"), out.toString());
    assertEquals(Optional.empty(), out.failure());
    assertEquals(Optional.empty(), out.interruption());
    assertFalse(out.ignoredInterrupt());
    assertTrue(out.resigned(), "returning while leading gives the term up");
    assertEquals(seen.get(), out.leadership());
    assertFalse(out.leadership().isValid(), "the term is over once runWhileLeader returns");
  }

  @Test
  void whatTheTaskThrowsIsInTheOutcomeAndTheTermIsResigned() throws Exception {
    LeaderElector e = group.add("a", b -> b);
    e.start();
    LeaderTaskOutcome<Void> out = e.runWhileLeader(l -> {
      throw new IllegalStateException("boom");
    });
    assertEquals("boom", out.failure().orElseThrow().getMessage());
    assertTrue(out.resigned());
    assertEquals(Optional.empty(), out.value());
  }

  @Test
  void theTaskIsInterruptedWhenTheTermEnds() throws Exception {
    LeaderElector e = group.add("a", b -> b);
    e.start();
    CountDownLatch running = new CountDownLatch(1);
    CompletableFuture<LeaderTaskOutcome<Object>> f = inBackground(e, l -> {
      running.countDown();
      new CountDownLatch(1).await();
      return null;
    }, Duration.ofMillis(200));
    assertTrue(running.await(10, TimeUnit.SECONDS));
    assertTrue(store.faults().deleteKey(Electors.KEY));
    LeaderTaskOutcome<Object> out = f.get(10, TimeUnit.SECONDS);
    assertEquals(Optional.of(Interruption.TERM_ENDED), out.interruption());
    assertInstanceOf(InterruptedException.class, out.failure().orElseThrow());
    assertFalse(out.ignoredInterrupt());
    assertFalse(out.resigned(), "the term had already ended");
  }

  @Test
  void theTaskIsInterruptedBeforeTheDeadlineWhileTheTermIsStillValid() throws Exception {
    LeaderElector e = group.add("a", b -> b.leaseTtl(Duration.ofSeconds(3)));
    e.start();
    Duration grace = Duration.ofMillis(600);
    CountDownLatch running = new CountDownLatch(1);
    AtomicReference<Boolean> validAtInterrupt = new AtomicReference<>();
    CompletableFuture<LeaderTaskOutcome<Object>> f = inBackground(e, l -> {
      running.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException stop) {
        validAtInterrupt.set(l.isValid());
      }
      return "stopped";
    }, grace);
    assertTrue(running.await(10, TimeUnit.SECONDS));
    // No renewal is confirmed from now on: the deadline comes closer until only grace is left.
    store.faults().makeUnavailable();
    LeaderTaskOutcome<Object> out = f.get(10, TimeUnit.SECONDS);
    assertEquals(Optional.of(Interruption.DEADLINE_NEAR), out.interruption());
    assertTrue(validAtInterrupt.get(), "interrupted while the term still held");
    assertEquals(Optional.of("stopped"), out.value());
    assertFalse(out.ignoredInterrupt());
    store.faults().makeAvailable();
  }

  @Test
  void aTaskThatIgnoresTheInterruptIsReported() throws Exception {
    LeaderElector e = group.add("a", b -> b);
    e.start();
    Duration grace = Duration.ofMillis(100);
    CountDownLatch running = new CountDownLatch(1);
    CompletableFuture<LeaderTaskOutcome<String>> f = inBackground(e, l -> {
      running.countDown();
      // Deaf to interrupts: it keeps going for six graces after its term ended.
      while (l.isValid()) {
        Thread.interrupted();
        LockSupport.parkNanos(1_000_000);
      }
      long until = System.nanoTime() + 6 * grace.toNanos();
      while (System.nanoTime() - until < 0) {
        Thread.interrupted();
        LockSupport.parkNanos(1_000_000);
      }
      return "finally";
    }, grace);
    assertTrue(running.await(10, TimeUnit.SECONDS));
    e.resign();
    LeaderTaskOutcome<String> out = f.get(10, TimeUnit.SECONDS);
    assertEquals(Optional.of(Interruption.TERM_ENDED), out.interruption());
    assertTrue(out.ignoredInterrupt(), out.toString());
    assertEquals(Optional.of("finally"), out.value());
  }

  @Test
  void interruptingTheCallerInterruptsTheTaskAndResignsTheTerm() throws Exception {
    LeaderElector e = group.add("a", b -> b);
    e.start();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    CompletableFuture<LeaderTaskOutcome<Object>> f = inBackground(e, l -> {
      running.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException stop) {
        interrupted.countDown();
      }
      return null;
    }, Duration.ofMillis(200));
    assertTrue(running.await(10, TimeUnit.SECONDS));
    Leadership term = e.leadership().orElseThrow();
    caller.get().interrupt();
    ExecutionException thrown = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    assertInstanceOf(InterruptedException.class, thrown.getCause());
    assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the task was interrupted");
    Electors.waiting(SOON).until(() -> !term.isValid());
  }

  @Test
  void awaitLeadershipAndRunWhileLeaderEndOnInterruptionWhileWaitingToLead() throws Exception {
    group.start(1, b -> b);
    group.awaitLeader(0, SOON);
    LeaderElector follower = group.add("f", b -> b);
    follower.start();
    for (int i = 0; i < 2; i++) {
      boolean viaRun = i == 1;
      CompletableFuture<Object> f = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        try {
          f.complete(viaRun
              ? follower.runWhileLeader(l -> "ran")
              : follower.awaitLeadership(Duration.ofMinutes(5)));
        } catch (Throwable x) {
          f.completeExceptionally(x);
        }
      });
      t.start();
      Electors.waiting(SOON).until(() -> t.getState() == Thread.State.TIMED_WAITING
          || t.getState() == Thread.State.WAITING);
      t.interrupt();
      ExecutionException thrown = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
      assertInstanceOf(InterruptedException.class, thrown.getCause(), viaRun ? "runWhileLeader" : "awaitLeadership");
    }
    // An already interrupted thread does not wait at all.
    Thread.currentThread().interrupt();
    assertThrows(InterruptedException.class, () -> follower.awaitLeadership(Duration.ofMinutes(5)));
    assertFalse(Thread.interrupted());
  }

  @Test
  void aClosedElectorNeverRunsTheTaskAndGraceIsValidated() {
    LeaderElector e = group.add("a", b -> b.leaseTtl(Duration.ofSeconds(3)));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> e.runWhileLeader(l -> null, Duration.ofSeconds(1)));
    assertEquals("grace must be >= 0 and < leaseTtl/3 (1s), but was 1s", bad.getMessage());
    e.start();
    e.close();
    assertThrows(CancellationException.class, () -> e.runWhileLeader(l -> "never"));
  }
}
