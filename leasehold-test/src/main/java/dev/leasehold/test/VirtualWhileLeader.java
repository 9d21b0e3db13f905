package dev.leasehold.test;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderTask;
import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.Leadership;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VirtualWhileLeader is {@code runWhileLeader} on virtual time, with the production rules of
 * {@link dev.leasehold.LeaderElector#runWhileLeader(LeaderTask, Duration)}: it waits for a term,
 * runs the task on a simulated thread of the instance ({@link VirtualElector#thread}), interrupts
 * it when the term ends or when only {@code grace} is left before the local deadline, reports a
 * task still running {@code grace} after its interrupt (one WARN line and {@link
 * LeaderTaskOutcome#ignoredInterrupt()}), and resigns a term the task left. Every wait is on the
 * instance's virtual clock, and the calling (test) thread runs the time while it waits.
 *
 * <p>The task waits with {@link VirtualElector#sleep} and {@link VirtualElector#await}, which an
 * interrupt ends as on a real thread; a real {@code Thread.sleep} or blocking call holds the whole
 * run (see {@link SimulatedThread}). Not thread-safe: one run, on the thread that drives the time.
 */
final class VirtualWhileLeader<T> {
  private static final Logger log = LoggerFactory.getLogger(VirtualWhileLeader.class);
  /** PATIENCE bounds each wait of virtual time, so a run that can never end fails instead of spinning. */
  static final Duration PATIENCE = Duration.ofHours(1);

  private final VirtualElector elector;
  private final VirtualTime time;
  private final LeaderTask<T> task;
  private final long graceNanos;
  private final CompletableFuture<T> done = new CompletableFuture<>();
  private Leadership term;
  private Thread worker;
  private Interruption why;
  private long interruptedAt;
  private boolean ignored;

  VirtualWhileLeader(VirtualElector elector, VirtualTime time, LeaderTask<T> task, Duration grace) {
    Duration third = elector.config().leaseTtl().dividedBy(3);
    if (grace == null || grace.isNegative() || grace.compareTo(third) >= 0) {
      throw new IllegalArgumentException("grace must be >= 0 and < leaseTtl/3 (" + third.toMillis()
          + " ms), but was " + (grace == null ? "null" : grace.toMillis() + " ms"));
    }
    this.elector = elector;
    this.time = time;
    this.task = task;
    this.graceNanos = grace.toNanos();
  }

  LeaderTaskOutcome<T> run() {
    if (!time.runUntil(() -> valid().isPresent() || elector.state() == ElectorState.STOPPED, PATIENCE)) {
      throw new IllegalStateException(elector + " did not lead within " + PATIENCE.toHours()
          + " hour of virtual time");
    }
    term = valid().orElseThrow(() -> new CancellationException("elector closed before it led"));
    worker = elector.thread("leasehold-work-" + term.candidateId(), this::work);
    while (!done.isDone()) {
      if (why == null) {
        if (!term.isValid()) {
          interrupt(Interruption.TERM_ENDED);
        } else {
          long left = term.timeLeft().toNanos();
          if (left <= graceNanos) {
            interrupt(Interruption.DEADLINE_NEAR);
          } else {
            time.runUntil(() -> done.isDone() || !term.isValid(), Duration.ofNanos(left - graceNanos));
          }
        }
      } else if (!ignored) {
        long wait = graceNanos - (elector.nanoTime() - interruptedAt);
        if (wait > 0) {
          time.runUntil(done::isDone, Duration.ofNanos(wait));
        } else {
          ignoredInterrupt();
        }
      } else if (!time.runUntil(done::isDone, PATIENCE)) {
        throw new IllegalStateException(worker.getName() + " still ran " + PATIENCE.toHours()
            + " hour of virtual time after its interrupt");
      }
    }
    return outcome();
  }

  private Optional<Leadership> valid() {
    return elector.leadership().filter(Leadership::isValid);
  }

  private void work() {
    try {
      done.complete(task.run(term));
    } catch (Throwable t) {
      done.completeExceptionally(t);
    }
  }

  private void interrupt(Interruption reason) {
    why = reason;
    interruptedAt = elector.nanoTime();
    worker.interrupt();
    // The simulated thread takes its interrupt at this instant, in its next turn.
    time.runUntil(done::isDone, Duration.ZERO);
  }

  private void ignoredInterrupt() {
    ignored = true;
    log.warn("{}@{}: leader task still running {} ms after it was interrupted ({}; token {}): it ignores"
        + " interrupts and may act outside its term; guard its effects with the fencing token",
        term.candidateId(), term.electionKey(), (elector.nanoTime() - interruptedAt) / 1_000_000, why,
        term.fencingToken());
  }

  private LeaderTaskOutcome<T> outcome() {
    Optional<T> value = Optional.empty();
    Optional<Throwable> failure = Optional.empty();
    try {
      value = Optional.ofNullable(done.join());
    } catch (CompletionException e) {
      failure = Optional.of(e.getCause() != null ? e.getCause() : e);
    }
    boolean resigned = false;
    if (term.isValid()) {
      term.resign();
      resigned = true;
      CompletableFuture<?> lost = term.whenLost().toCompletableFuture();
      time.runUntil(lost::isDone, elector.config().rpcTimeout());
    }
    return new LeaderTaskOutcome<>(term, value, failure, Optional.ofNullable(why), ignored, resigned);
  }
}
