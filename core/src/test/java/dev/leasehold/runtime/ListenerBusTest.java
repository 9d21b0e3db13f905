package dev.leasehold.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ListenerBusTest {
  private static final ExecutorService HOP = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "test-dispatcher");
    t.setDaemon(true);
    return t;
  });

  private static LeadershipEvent event(long n) {
    return new LeadershipEvent(
        ElectorState.FOLLOWER, ElectorState.FOLLOWER, Cause.LEADER_CHANGED, Optional.empty(),
        Instant.now(), n, Optional.empty(), Optional.empty());
  }

  /** flush waits until deliveries queued so far went through the dispatcher and the executor. */
  private static void flush(ExecutorService executor) throws Exception {
    for (int i = 0; i < 3; i++) {
      HOP.submit(() -> { }).get(5, TimeUnit.SECONDS);
      executor.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void eventsArriveInOrderEvenOnAManyThreadedExecutor() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      ListenerBus bus = new ListenerBus(HOP);
      List<Long> seen = new CopyOnWriteArrayList<>();
      CountDownLatch done = new CountDownLatch(1);
      bus.add(bus.newSubscription(e -> {
        seen.add(e.nanoTime());
        if (e.nanoTime() == 2000) {
          done.countDown();
        }
      }, pool), event(0));
      for (long i = 1; i <= 2000; i++) {
        bus.publish(event(i));
      }
      assertTrue(done.await(10, TimeUnit.SECONDS));
      for (int i = 0; i < seen.size(); i++) {
        assertEquals(i, seen.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aThrowingListenerDoesNotStopItsLaterEventsOrOthers() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      ListenerBus bus = new ListenerBus(HOP);
      List<Long> good = new CopyOnWriteArrayList<>();
      List<Long> bad = new CopyOnWriteArrayList<>();
      bus.add(bus.newSubscription(e -> {
        bad.add(e.nanoTime());
        throw new IllegalStateException("listener bug");
      }, one), event(0));
      bus.add(bus.newSubscription(e -> good.add(e.nanoTime()), one), event(0));
      bus.publish(event(1));
      bus.publish(event(2));
      flush(one);
      assertEquals(List.of(0L, 1L, 2L), good);
      assertEquals(List.of(0L, 1L, 2L), bad);
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void aSameThreadExecutorStillNeverRunsTheListenerOnThePublishingThread() throws Exception {
    ListenerBus bus = new ListenerBus(HOP);
    List<String> threads = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(2);
    bus.add(bus.newSubscription(e -> {
      threads.add(Thread.currentThread().getName());
      done.countDown();
    }, Runnable::run), event(0));
    bus.publish(event(1));
    assertTrue(done.await(5, TimeUnit.SECONDS));
    assertEquals(List.of("test-dispatcher", "test-dispatcher"), threads);
  }

  @Test
  void closedSubscriptionGetsNoMoreEvents() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      ListenerBus bus = new ListenerBus(HOP);
      List<Long> seen = new CopyOnWriteArrayList<>();
      ListenerBus.Sub sub = bus.newSubscription(e -> seen.add(e.nanoTime()), one);
      bus.add(sub, event(0));
      flush(one);
      sub.close();
      sub.close();
      bus.publish(event(1));
      flush(one);
      assertEquals(List.of(0L), seen);
    } finally {
      one.shutdownNow();
    }
  }
}
