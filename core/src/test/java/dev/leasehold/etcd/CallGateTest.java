package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallGateTest {
  private final AtomicLong now = new AtomicLong();
  private final CallGate gate = new CallGate(2, now::get, TimeUnit.SECONDS.toNanos(30));
  private final List<CompletableFuture<String>> sent = new ArrayList<>();

  private CompletableFuture<String> submit(long timeout) {
    return gate.submit(() -> {
      CompletableFuture<String> f = new CompletableFuture<>();
      sent.add(f);
      return f;
    }, timeout);
  }

  @Test
  void atMostTheLimitIsInFlightAndTheNextGoesWhenOneEnds() throws Exception {
    CompletableFuture<String> a = submit(100);
    submit(100);
    CompletableFuture<String> c = submit(100);
    assertEquals(2, sent.size(), "the third waits");
    sent.get(0).complete("a");
    assertEquals("a", a.get());
    assertEquals(3, sent.size(), "and goes when a slot frees");
    sent.get(2).complete("c");
    assertEquals("c", c.get());
    assertEquals(1, gate.inFlight());
  }

  @Test
  void aCallThatWaitedItsWholeTimeoutIsNeverSent() {
    submit(100);
    submit(100);
    CompletableFuture<String> late = submit(100);
    now.addAndGet(101);
    sent.get(0).completeExceptionally(new IllegalStateException("unavailable"));
    ExecutionException e = assertThrows(ExecutionException.class, late::get);
    assertTrue(e.getCause() instanceof TimeoutException, e.toString());
    assertEquals(2, sent.size(), "not sent");
    assertEquals(1, gate.inFlight());
  }

  @Test
  void aFailureReachesItsCallerAndFreesTheSlot() {
    CompletableFuture<String> a = submit(100);
    sent.get(0).completeExceptionally(new IllegalStateException("unavailable"));
    assertThrows(ExecutionException.class, a::get);
    assertEquals(0, gate.inFlight());
  }

  @Test
  void aCallThatNeverEndsFreesItsSlotAtItsDeadline() throws Exception {
    CallGate tight = new CallGate(1, now::get, TimeUnit.MILLISECONDS.toNanos(50));
    CompletableFuture<String> hung = new CompletableFuture<>();
    CompletableFuture<String> a = tight.submit(() -> hung, Long.MAX_VALUE / 2);
    CompletableFuture<String> b = tight.submit(() -> CompletableFuture.completedFuture("b"), Long.MAX_VALUE / 2);
    ExecutionException e = assertThrows(ExecutionException.class, () -> a.get(5, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof TimeoutException, e.toString());
    assertEquals("b", b.get(5, TimeUnit.SECONDS), "the next call goes once the hung one's deadline passed");
    assertFalse(hung.isDone(), "jetcd's own future is left alone");
    assertEquals(0, tight.inFlight());
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CallGate(0, now::get, 1));
  }
}
