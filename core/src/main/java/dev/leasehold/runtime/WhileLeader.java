package dev.leasehold.runtime;

import dev.leasehold.Durations;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderTask;
import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.LeaderTaskOutcome.Interruption;
import dev.leasehold.Leadership;
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
 * after the interrupt. Its clock, its waits and its worker come from a {@link Host}: real ones
 * in production, the test kit's on virtual time, so both run this one implementation.
 *
 * <p>Stateless and thread-safe; each run owns its worker thread.
 */
public final class WhileLeader {
  private static final Logger log = LoggerFactory.getLogger(WhileLeader.class);
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final Duration AWAIT_SLICE = Duration.ofMinutes(1);

  /**
   * REAL is production's host: {@link System#nanoTime()}, a new daemon thread per task, and
   * blocking waits on the calling thread.
   */
  public static final Host REAL = new Host() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public Thread start(String name, Runnable body) {
      Thread t = new Thread(body, name);
      // A task that ignores interrupts must not keep the JVM from exiting.
      t.setDaemon(true);
      t.start();
      return t;
    }

    @Override
    public void await(CompletableFuture<?> f, long nanos) throws InterruptedException {
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
  };

  /**
   * Host is where a run's time passes: the clock it reads, the thread its task runs on, and
   * how the calling thread waits.
   *
   * <p>Implementations state their own thread safety; a run calls them from its calling thread.
   */
  public interface Host {
    /**
     * nanoTime is the elector's monotonic clock, the one its terms' {@code timeLeft()} reads.
     *
     * @return the time in nanoseconds, from an arbitrary origin
     */
    long nanoTime();

    /**
     * start starts a thread named {@code name} running {@code body}: the task's worker.
     *
     * @param name the worker's name
     * @param body what the worker runs
     * @return the worker, started; interrupting it interrupts the task
     */
    Thread start(String name, Runnable body);

    /**
     * await waits until {@code f} completes, however it completes, or {@code nanos} pass.
     *
     * @param f what to wait for
     * @param nanos the most to wait; {@link Long#MAX_VALUE} waits as long as it takes
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void await(CompletableFuture<?> f, long nanos) throws InterruptedException;
  }

  private WhileLeader() {}

  /**
   * run is {@link LeaderElector#runWhileLeader(LeaderTask, Duration)} on {@code host}'s time.
   *
   * @param <T> what the task returns
   * @param elector the elector whose term the task runs in
   * @param task the leader-only work
   * @param grace how long before the local deadline the task is interrupted, and then has to stop
   * @param host the clock, the worker and the waits of the run
   * @return how the run ended
   * @throws InterruptedException if the calling thread is interrupted
   * @throws IllegalArgumentException if {@code grace} is out of range
   */
  public static <T> LeaderTaskOutcome<T> run(
      LeaderElector elector, LeaderTask<T> task, Duration grace, Host host)
      throws InterruptedException {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(grace, "grace");
    Duration third = elector.config().leaseTtl().dividedBy(3);
    if (grace.isNegative() || grace.compareTo(third) >= 0) {
      throw new IllegalArgumentException(
          "grace must be >= 0 and < leaseTtl/3 (" + Durations.human(third) + "), but was "
              + Durations.human(grace));
    }
    Leadership term = awaitTerm(elector);
    return new Run<>(elector, term, task, grace.toNanos(), host).run();
  }

  private static Leadership awaitTerm(LeaderElector elector) throws InterruptedException {
    while (true) {
      Optional<Leadership> term = elector.awaitLeadership(AWAIT_SLICE);
      if (term.isPresent()) {
        return term.get();
      }
      // An elector whose awaitLeadership cannot throw (the test kit's) ends it empty instead.
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting to lead");
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
    private final Host host;
    private final CompletableFuture<T> done = new CompletableFuture<>();
    private Thread worker;
    private Interruption why;
    private long interruptedAt;
    private boolean ignored;

    Run(LeaderElector elector, Leadership term, LeaderTask<T> task, long graceNanos, Host host) {
      this.elector = elector;
      this.term = term;
      this.task = task;
      this.graceNanos = graceNanos;
      this.host = host;
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
      worker = host.start(
          "leasehold-work-" + term.candidateId() + "-" + SEQ.incrementAndGet(), this::work);
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
                host.await(endOrDone, left - graceNanos);
              }
            }
          } else if (!ignored) {
            long wait = graceNanos - (host.nanoTime() - interruptedAt);
            if (wait > 0) {
              host.await(done, wait);
            } else {
              ignoredInterrupt();
            }
          } else {
            host.await(done, Long.MAX_VALUE);
          }
        }
      } catch (InterruptedException callerInterrupted) {
        throw callerGaveUp(callerInterrupted);
      }
      return outcome();
    }

    private void interrupt(Interruption reason) {
      why = reason;
      interruptedAt = host.nanoTime();
      worker.interrupt();
    }

    private void ignoredInterrupt() {
      ignored = true;
      log.warn(
          "{}@{}: leader task still running {} ms after it was interrupted ({}; token {}): it"
              + " ignores interrupts and may act outside its term; guard its effects with the"
              + " fencing token", term.candidateId(), term.electionKey(),
          (host.nanoTime() - interruptedAt) / 1_000_000, why, term.fencingToken());
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
      while (!stopped && until - host.nanoTime() > 0) {
        try {
          host.await(done, until - host.nanoTime());
        } catch (InterruptedException again) {
          // Already on the way out; the exception we throw reports the interrupt.
        }
        stopped = done.isDone();
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
        host.await(term.whenLost().toCompletableFuture(), elector.config().rpcTimeout().toNanos());
      }
      return new LeaderTaskOutcome<>(
          term, value, failure, Optional.ofNullable(why), ignored, resigned);
    }
  }
}
