package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * ColdLane lets the electors that share one given jetcd {@link Client} and one election key make
 * their cold campaigns (PROTOCOL.md §4.5) one round after the first of them. The first to send
 * its cold grant, the <em>pilot</em>, goes at once; the others' cold grants wait in the lane until
 * the pilot has <em>landed</em>: its campaign was answered or failed, its grant failed, or its
 * elector closed. Then the lane opens for good and every waiting grant is sent, in order, as they
 * all would have been. So a thousand electors started at once in one process do not put their
 * thousand grants ahead of the first one's campaign on their one connection, while nothing waits
 * longer than one round: no call changes, only when the others are sent.
 *
 * <p>Bounds: a waiting grant whose own timeout (its cold wait) passed before the lane opened is
 * not sent and fails, as a call given up; one whose future its caller cancelled is dropped; and
 * the lane opens at the latest the pilot's own timeout after the pilot was sent, whatever became
 * of it. Grants that are not cold never wait here.
 *
 * <p>Thread-safe: calls come from the electors' loops, landings from jetcd's threads; the lock
 * guards only the state and the queue, and the released grants are sent on {@code release},
 * never under the lock nor on the thread that landed.
 */
final class ColdLane {
  private static final Map<Client, Map<String, ColdLane>> LANES = new WeakHashMap<>();

  private enum State { IDLE, PILOT, OPEN }

  private final LongSupplier clock;
  private final Executor release;
  private final Scheduler scheduler;
  private final ArrayDeque<Waiter<?>> waiting = new ArrayDeque<>();
  private State state = State.IDLE;
  private Object pilot;

  /** Scheduler runs a task after a delay in nanoseconds (the lane's bound on the pilot). */
  @FunctionalInterface
  interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  private record Waiter<T>(Supplier<CompletableFuture<T>> send, CompletableFuture<T> result, long expiresAt) {
    void start() {
      CompletableFuture<T> sent;
      try {
        sent = send.get();
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      sent.whenComplete((r, e) -> {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(r);
        }
      });
    }
  }

  ColdLane(LongSupplier clock, Executor release, Scheduler scheduler) {
    this.clock = clock;
    this.release = release;
    this.scheduler = scheduler;
  }

  /** of is the lane of {@code key} on {@code client}, made on first use. */
  static ColdLane of(Client client, String key) {
    synchronized (LANES) {
      return LANES.computeIfAbsent(client, c -> new HashMap<>()).computeIfAbsent(key, k -> new ColdLane(
          System::nanoTime, ForkJoinPool.commonPool(),
          (task, delay) -> CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(task)));
    }
  }

  /**
   * send sends {@code owner}'s cold grant now if the lane is open, or as the pilot if nobody has
   * gone yet; otherwise it waits until the pilot lands, at most {@code timeoutNanos}.
   *
   * @return the call's future; cancelling it while it waits drops it unsent
   */
  <T> CompletableFuture<T> send(Object owner, Supplier<CompletableFuture<T>> call, long timeoutNanos) {
    Waiter<T> w = new Waiter<>(call, new CompletableFuture<>(), clock.getAsLong() + timeoutNanos);
    boolean now;
    boolean becamePilot = false;
    synchronized (this) {
      now = state != State.PILOT;
      if (state == State.IDLE) {
        state = State.PILOT;
        pilot = owner;
        becamePilot = true;
      } else if (!now) {
        waiting.add(w);
      }
    }
    if (becamePilot) {
      scheduler.schedule(() -> landed(owner), timeoutNanos);
    }
    if (now) {
      w.start();
    }
    return w.result();
  }

  /** landed opens the lane if {@code owner} is its pilot; for anyone else it does nothing. */
  void landed(Object owner) {
    List<Waiter<?>> go;
    synchronized (this) {
      if (state != State.PILOT || pilot != owner) {
        return;
      }
      state = State.OPEN;
      pilot = null;
      go = new ArrayList<>(waiting);
      waiting.clear();
    }
    if (!go.isEmpty()) {
      release.execute(() -> {
        long now = clock.getAsLong();
        for (Waiter<?> w : go) {
          if (w.result().isDone()) {
            continue; // its caller gave it up
          }
          if (now - w.expiresAt() > 0) {
            w.result().completeExceptionally(
                new TimeoutException("not sent: waited its whole timeout for the first cold campaign on this client"));
          } else {
            w.start();
          }
        }
      });
    }
  }

  /** waiting is how many grants wait for the pilot now (cancelled ones included until it lands). */
  synchronized int waiting() {
    return waiting.size();
  }

  /** piloting tells whether a pilot's grant has gone and it has not landed yet. */
  synchronized boolean piloting() {
    return state == State.PILOT;
  }

  /** open tells whether the pilot has landed. */
  synchronized boolean open() {
    return state == State.OPEN;
  }
}
