package dev.leasehold.runtime;

import dev.leasehold.Leadership;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * LeadershipWaiters holds the futures of callers waiting to lead, and completes them on the
 * dispatcher (never on the event loop, since their callbacks are user code): with the term on
 * election, with a {@link CancellationException} on close.
 *
 * <p>Thread-safe: futures are added and removed from any thread, completed from the loop.
 */
public final class LeadershipWaiters {
  private final Set<CompletableFuture<Leadership>> waiting = ConcurrentHashMap.newKeySet();
  private final Scheduler scheduler;
  private final Executor dispatcher;
  private final Supplier<? extends Leadership> current;
  private final BooleanSupplier closing;

  /**
   * LeadershipWaiters serves {@code scheduler}'s elector: {@code current} is its term, or null
   * (read on the loop), {@code closing} whether it began to close (read on the loop too).
   *
   * @param scheduler the elector's scheduler, whose loop reads the term and whose dispatcher
   *     completes the futures
   * @param current reads the current term, or null when there is none
   * @param closing reads whether the elector began to close
   */
  public LeadershipWaiters(
      Scheduler scheduler, Supplier<? extends Leadership> current, BooleanSupplier closing) {
    this.scheduler = scheduler;
    this.dispatcher = scheduler.dispatcher();
    this.current = current;
    this.closing = closing;
  }

  /**
   * leading is a future of this elector's term: the current one if valid, else the next; it
   * fails with a {@link CancellationException} once the elector closes.
   *
   * @return a new future of the term
   */
  public CompletableFuture<Leadership> leading() {
    CompletableFuture<Leadership> f = new CompletableFuture<>();
    try {
      // On the loop, so no election can slip between the check and the registration.
      scheduler.execute(
          () -> {
            Leadership t = current.get();
            if (t != null && t.isValid()) {
              completeNow(f, t);
            } else if (closing.getAsBoolean()) {
              f.completeExceptionally(new CancellationException("elector closed"));
            } else {
              add(f);
            }
          });
    } catch (RejectedExecutionException closedAlready) {
      f.completeExceptionally(new CancellationException("elector closed"));
    }
    return f;
  }

  /**
   * await blocks until the elector leads, up to {@code timeout}; empty on timeout or close.
   * Interrupting the waiting thread ends the wait with {@link InterruptedException}.
   *
   * @param timeout how long to wait at most, not null; zero or negative checks once without waiting
   * @return the term, or empty on timeout or close
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public Optional<Leadership> await(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    CompletableFuture<Leadership> f = leading();
    try {
      return Optional.of(f.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS));
    } catch (TimeoutException | CancellationException | ExecutionException e) {
      return Optional.empty();
    } finally {
      remove(f);
    }
  }

  void add(CompletableFuture<Leadership> f) {
    waiting.add(f);
  }

  void remove(CompletableFuture<Leadership> f) {
    waiting.remove(f);
  }

  /**
   * elected hands {@code term} to every waiter.
   *
   * @param term the term just won
   */
  public void elected(Leadership term) {
    for (CompletableFuture<Leadership> f : Set.copyOf(waiting)) {
      waiting.remove(f);
      complete(f, () -> f.complete(term));
    }
  }

  /** closed fails every waiter: the elector will never lead again. */
  public void closed() {
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
