package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ColdLaneTest {
  private final AtomicLong now = new AtomicLong();
  private final List<Runnable> timers = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();
  private final ColdLane lane = new ColdLane(now::get, Runnable::run, (task, delay) -> {
    timers.add(task);
    delays.add(delay);
  });
  private final List<String> sent = new ArrayList<>();
  private final List<CompletableFuture<String>> calls = new ArrayList<>();

  private CompletableFuture<String> send(Object owner, String name, long timeout) {
    return lane.send(owner, () -> {
      sent.add(name);
      CompletableFuture<String> f = new CompletableFuture<>();
      calls.add(f);
      return f;
    }, timeout);
  }

  @Test
  void thePilotGoesAloneAndTheOthersGoInOrderOnceItLands() throws Exception {
    Object pilot = new Object();
    CompletableFuture<String> a = send(pilot, "a", 100);
    CompletableFuture<String> b = send(new Object(), "b", 100);
    send(new Object(), "c", 100);
    assertEquals(List.of("a"), sent, "only the pilot's grant is sent");
    assertEquals(2, lane.waiting());
    calls.get(0).complete("granted a");
    assertEquals("granted a", a.get());
    assertEquals(List.of("a"), sent, "the pilot's grant answered is not its landing: its campaign is");
    lane.landed(new Object());
    assertEquals(List.of("a"), sent, "only the pilot lands");
    lane.landed(pilot);
    assertEquals(List.of("a", "b", "c"), sent);
    assertTrue(lane.open());
    calls.get(1).complete("granted b");
    assertEquals("granted b", b.get());
    send(new Object(), "d", 100);
    assertEquals(List.of("a", "b", "c", "d"), sent, "an open lane sends at once");
  }

  @Test
  void aGrantThatWaitedItsWholeTimeoutIsNotSentAndACancelledOneIsDropped() {
    Object pilot = new Object();
    send(pilot, "a", 100);
    CompletableFuture<String> late = send(new Object(), "late", 10);
    CompletableFuture<String> dropped = send(new Object(), "dropped", 100);
    CompletableFuture<String> kept = send(new Object(), "kept", 100);
    dropped.cancel(false);
    now.addAndGet(50);
    lane.landed(pilot);
    assertEquals(List.of("a", "kept"), sent);
    ExecutionException e = assertThrows(ExecutionException.class, late::get);
    assertTrue(e.getCause() instanceof TimeoutException, e.toString());
    assertFalse(kept.isDone());
  }

  @Test
  void theLaneOpensAtTheLatestThePilotsTimeoutAfterItWent() {
    Object pilot = new Object();
    send(pilot, "a", 100);
    send(new Object(), "b", 500);
    assertEquals(List.of(100L), delays);
    timers.get(0).run(); // the pilot's grant and campaign are still unanswered
    assertEquals(List.of("a", "b"), sent);
    assertTrue(lane.open());
  }

  @Test
  void aFailedSendReachesItsCaller() {
    CompletableFuture<String> a = lane.send(new Object(), () -> {
      throw new IllegalStateException("client closed");
    }, 100);
    ExecutionException e = assertThrows(ExecutionException.class, a::get);
    assertEquals("client closed", e.getCause().getMessage());
  }
}
