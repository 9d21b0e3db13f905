package dev.leasehold;

import dev.leasehold.LeaderTaskOutcome.Interruption;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WhileLeader carries out {@link LeaderElector#runWhileLeader}: it waits for a term, runs the
 * task on a worker thread of its own, and from the calling thread interrupts the worker when
 * the term ends or when only {@code grace} is left before the local deadline, whichever comes
 * first; then it waits for the task, warning once if the task is still running {@code grace}
 * after the interrupt.
 *
 * <p>Stateless and thread-safe; each run owns its worker thread.
 */
final class WhileLeader {
  private static final Logger log = LoggerFactory.getLogger(WhileLeader.class);
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Duration AWAIT_SLICE = Duration.ofMinutes(1);

  private WhileLeader() {}

  static <T> LeaderTaskOutcome<T> run(LeaderElector elector, LeaderTask<T> task, Duration grace)
      throws InterruptedException {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(grace, "grace");
    Duration third = elector.config().leaseTtl().dividedBy(3);
    if (grace.isNegative() || grace.compareTo(third) >= 0) {
      throw new IllegalArgumentException(
          "grace must be >= 0 and < leaseTtl/3 (" + Durations.human(third) + "), but was "
              + Durations.human(grace));
    }
    Leadership term = awaitTerm(elector);
    return new Run<>(elector, term, task, grace.toNanos()).run();
  }

  private static Leadership awaitTerm(LeaderElector elector) throws InterruptedException {
    while (true) {
      Optional<Leadership> term = elector.awaitLeadership(AWAIT_SLICE);
      if (term.isPresent()) {
        return term.get();
      }
      if (elector.state() == ElectorState.STOPPED) {
        throw new CancellationException("elector closed before it led");
      }
    }
  }

  /** Run is one task on one term. */
  private static final class Run<T> {
    private final LeaderElector elector;
    private final Leadership term;
    private final LeaderTask<T> task;
    private final long graceNanos;
    private final CompletableFuture<T> done = new CompletableFuture<>();
    private final Thread worker;
    private Interruption why;
    private long interruptedAt;
    private boolean ignored;

    Run(LeaderElector elector, Leadership term, LeaderTask<T> task, long graceNanos) {
      this.elector = elector;
      this.term = term;
      this.task = task;
      this.graceNanos = graceNanos;
      this.worker = new Thread(this::work, "leasehold-work-" + term.candidateId() + "-" + SEQ.incrementAndGet());
      // A task that ignores interrupts must not keep the JVM from exiting.
      worker.setDaemon(true);
    }

    private void work() {
      try {
        done.complete(task.run(term));
      } catch (Throwable t) {
        done.completeExceptionally(t);
        if (t instanceof VirtualMachineError vmError) {
          throw vmError;
        }
      }
    }

    LeaderTaskOutcome<T> run() throws InterruptedException {
      worker.start();
      CompletableFuture<Object> endOrDone =
          CompletableFuture.anyOf(done, term.whenLost().toCompletableFuture());
      try {
        while (!done.isDone()) {
          if (why == null) {
            // isValid() turns false before whenLost() completes, so this never spins.
            if (!term.isValid()) {
              interrupt(Interruption.TERM_ENDED);
            } else {
              long left = term.timeLeft().toNanos();
              if (left <= graceNanos) {
                interrupt(Interruption.DEADLINE_NEAR);
              } else {
                waitFor(endOrDone, left - graceNanos);
              }
            }
          } else if (!ignored) {
            long wait = graceNanos - (System.nanoTime() - interruptedAt);
            if (wait > 0) {
              waitFor(done, wait);
            } else {
              ignoredInterrupt();
            }
          } else {
            waitFor(done, Long.MAX_VALUE);
          }
        }
      } catch (InterruptedException callerInterrupted) {
        throw callerGaveUp(callerInterrupted);
      }
      return outcome();
    }

    private void interrupt(Interruption reason) {
      why = reason;
      interruptedAt = System.nanoTime();
      worker.interrupt();
    }

    private void ignoredInterrupt() {
      ignored = true;
      log.warn(
          "{}@{}: leader task still running {} ms after it was interrupted ({}; token {}): it"
              + " ignores interrupts and may act outside its term; guard its effects with the"
              + " fencing token", term.candidateId(), term.electionKey(),
          (System.nanoTime() - interruptedAt) / 1_000_000, why, term.fencingToken());
    }

    /**
     * callerGaveUp interrupts the task for the caller, gives it {@code grace} to stop, resigns
     * the term if it still holds, and returns the exception to throw.
     */
    private InterruptedException callerGaveUp(InterruptedException e) {
      if (why == null) {
        interrupt(Interruption.CALLER_INTERRUPTED);
      }
      long until = interruptedAt + graceNanos;
      boolean stopped = done.isDone();
      while (!stopped && until - System.nanoTime() > 0) {
        try {
          done.get(until - System.nanoTime(), TimeUnit.NANOSECONDS);
          stopped = true;
        } catch (ExecutionException | CancellationException finished) {
          stopped = true;
        } catch (TimeoutException late) {
          break;
        } catch (InterruptedException again) {
          // Already on the way out; the exception we throw reports the interrupt.
        }
      }
      if (!stopped && !ignored) {
        ignoredInterrupt();
      }
      if (term.isValid()) {
        term.resign();
      }
      InterruptedException out =
          new InterruptedException("interrupted while the leader task ran; the task "
              + (stopped ? "stopped" : "is still running"));
      out.initCause(e);
      return out;
    }

    private LeaderTaskOutcome<T> outcome() throws InterruptedException {
      Optional<T> value = Optional.empty();
      Optional<Throwable> failure = Optional.empty();
      try {
        value = Optional.ofNullable(done.join());
      } catch (java.util.concurrent.CompletionException e) {
        failure = Optional.of(e.getCause() != null ? e.getCause() : e);
      }
      boolean resigned = false;
      if (term.isValid()) {
        // A term nobody works in only keeps the others out (as with Curator's LeaderSelector).
        term.resign();
        resigned = true;
        waitFor(term.whenLost().toCompletableFuture(), elector.config().rpcTimeout().toNanos());
      }
      return new LeaderTaskOutcome<>(
          term, value, failure, Optional.ofNullable(why), ignored, resigned);
    }

    /** waitFor waits up to {@code nanos} for {@code f} to complete, however it completes. */
    private static void waitFor(CompletableFuture<?> f, long nanos) throws InterruptedException {
      try {
        if (nanos == Long.MAX_VALUE) {
          f.get();
        } else {
          f.get(nanos, TimeUnit.NANOSECONDS);
        }
      } catch (ExecutionException | CancellationException | TimeoutException e) {
        // Completed (or still running): the caller looks at the state itself.
      }
    }
  }
}
