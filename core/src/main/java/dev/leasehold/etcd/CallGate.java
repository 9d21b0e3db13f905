package dev.leasehold.etcd;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * CallGate lets at most {@code limit} of a session's elections' calls (campaigns, fenced
 * deletes) be in flight at etcd at once; the others wait their turn, in order. A session that
 * starts 10,000 elections at once would otherwise put 10,000 transactions ahead of its own
 * lease's confirming read, which etcd serves only once it has applied them: the lease's
 * deadline would pass, every term end, and all 10,000 campaign again. A call that waited longer
 * than its timeout is not sent at all: its election has already counted it failed. A call sent
 * frees its slot when it ends or, at the latest, once its own deadline ({@code callTimeout})
 * has passed: a client of the caller's may put no deadline on its calls, and 64 calls hung on
 * a blackholed member must not stop every election of the session.
 *
 * <p>Thread-safe: calls are submitted from the elections' loop and completed on jetcd's
 * threads; the lock guards only the counter and the queue, and no future is completed under it.
 */
final class CallGate {
  private final int limit;
  private final LongSupplier clock;
  private final long callTimeoutNanos;
  private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
  private int inFlight;

  private record Waiter<T>(Supplier<CompletableFuture<T>> send, CompletableFuture<T> result, long expiresAt) {}

  CallGate(int limit, LongSupplier clock, long callTimeoutNanos) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
    }
    this.limit = limit;
    this.clock = clock;
    this.callTimeoutNanos = callTimeoutNanos;
  }

  /** submit sends the call now if a slot is free, else when one is (unless {@code timeoutNanos} passed first). */
  <T> CompletableFuture<T> submit(Supplier<CompletableFuture<T>> send, long timeoutNanos) {
    Waiter<T> w = new Waiter<>(send, new CompletableFuture<>(), clock.getAsLong() + timeoutNanos);
    boolean now;
    synchronized (this) {
      now = inFlight < limit;
      if (now) {
        inFlight++;
      } else {
        queue.add(w);
      }
    }
    if (now) {
      start(w);
    }
    return w.result();
  }

  /** inFlight is how many calls are at etcd now. */
  synchronized int inFlight() {
    return inFlight;
  }

  private <T> void start(Waiter<T> w) {
    CompletableFuture<T> sent;
    try {
      sent = w.send().get();
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    // A copy, so that the deadline ends the gate's wait and not jetcd's own future.
    sent.copy().orTimeout(callTimeoutNanos, TimeUnit.NANOSECONDS).whenComplete((r, e) -> {
      next();
      if (e != null) {
        w.result().completeExceptionally(e);
      } else {
        w.result().complete(r);
      }
    });
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private void next() {
    List<Waiter> expired = new ArrayList<>();
    Waiter go = null;
    synchronized (this) {
      long now = clock.getAsLong();
      while (go == null && !queue.isEmpty()) {
        Waiter w = queue.poll();
        if (now - w.expiresAt() > 0) {
          expired.add(w);
        } else {
          go = w;
        }
      }
      if (go == null) {
        inFlight--;
      }
    }
    for (Waiter w : expired) {
      w.result().completeExceptionally(
          new TimeoutException("not sent: waited its whole timeout behind " + limit + " calls in flight"));
    }
    if (go != null) {
      start(go);
    }
  }
}
