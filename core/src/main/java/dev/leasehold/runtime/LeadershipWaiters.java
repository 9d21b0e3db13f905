package dev.leasehold.runtime;

import dev.leasehold.Leadership;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * LeadershipWaiters holds the futures of callers waiting to lead, and completes them on the
 * dispatcher (never on the event loop, since their callbacks are user code): with the term on
 * election, with a {@link CancellationException} on close.
 *
 * <p>Thread-safe: futures are added and removed from any thread, completed from the loop.
 */
final class LeadershipWaiters {
  private final Set<CompletableFuture<Leadership>> waiting = ConcurrentHashMap.newKeySet();
  private final Executor dispatcher;

  LeadershipWaiters(Executor dispatcher) {
    this.dispatcher = dispatcher;
  }

  void add(CompletableFuture<Leadership> f) {
    waiting.add(f);
  }

  void remove(CompletableFuture<Leadership> f) {
    waiting.remove(f);
  }

  /** elected hands {@code term} to every waiter. */
  void elected(Leadership term) {
    for (CompletableFuture<Leadership> f : Set.copyOf(waiting)) {
      waiting.remove(f);
      complete(f, () -> f.complete(term));
    }
  }

  /** closed fails every waiter: the elector will never lead again. */
  void closed() {
    for (CompletableFuture<Leadership> f : Set.copyOf(waiting)) {
      waiting.remove(f);
      complete(f, () -> f.completeExceptionally(new CancellationException("elector closed")));
    }
  }

  /** completeNow completes {@code f} with a term already held, on the dispatcher. */
  void completeNow(CompletableFuture<Leadership> f, Leadership term) {
    complete(f, () -> f.complete(term));
  }

  private void complete(CompletableFuture<Leadership> f, Runnable action) {
    try {
      dispatcher.execute(action);
    } catch (RejectedExecutionException dispatcherGone) {
      f.completeExceptionally(new CancellationException("elector closed"));
    }
  }
}
