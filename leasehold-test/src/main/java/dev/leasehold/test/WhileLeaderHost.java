package dev.leasehold.test;

import dev.leasehold.runtime.WhileLeader;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * WhileLeaderHost is core's {@link WhileLeader.Host} on one instance's virtual time, so that a
 * {@link VirtualElector}'s {@code runWhileLeader} runs core's own implementation: the task runs
 * on a simulated thread of the instance ({@link VirtualElector#thread}), the clock is the
 * instance's, and the caller waits in virtual time. The caller is the thread that drives the
 * time (which runs the time while it waits) or a simulated thread of the same instance (which
 * parks in the kit while it waits, as in a {@link LeaseholdSimulation}).
 *
 * <p>Not thread-safe: used by the one run that made it, on its calling thread.
 */
final class WhileLeaderHost implements WhileLeader.Host {
  /**
   * MAX_WAIT bounds one wait in virtual time, so that "as long as it takes" cannot overflow the
   * clock; the run waits again after it.
   */
  private static final Duration MAX_WAIT = Duration.ofDays(1);

  private final VirtualElector elector;
  private final VirtualTime time;
  // Null when the caller drives the time.
  private final SimulatedThread caller;

  private WhileLeaderHost(VirtualElector elector, SimulatedThread caller) {
    this.elector = elector;
    this.time = elector.store().time();
    this.caller = caller;
  }

  /**
   * of is the host for a run called on the current thread.
   *
   * @throws IllegalStateException when the current thread can wait in neither way: code the
   *     time runs (a listener, a task on an executor), or a simulated thread of another instance
   */
  static WhileLeaderHost of(VirtualElector elector) {
    if (Thread.currentThread() instanceof SimulatedThread t && t.owner() == elector) {
      return new WhileLeaderHost(elector, t);
    }
    if (Thread.currentThread() instanceof SimulatedThread || elector.store().time().isRunning()) {
      throw new IllegalStateException("runWhileLeader waits while its task runs: call it from the"
          + " thread that drives the time or from a simulated thread of " + elector
          + " (start one with thread(name, body)), but it was called on "
          + Thread.currentThread().getName());
    }
    return new WhileLeaderHost(elector, null);
  }

  @Override
  public long nanoTime() {
    return elector.nanoTime();
  }

  @Override
  public Thread start(String name, Runnable body) {
    return elector.thread(name, body);
  }

  @Override
  public void await(CompletableFuture<?> f, long nanos) throws InterruptedException {
    Duration wait = Duration.ofNanos(Math.max(0, nanos));
    if (wait.compareTo(MAX_WAIT) > 0) {
      wait = MAX_WAIT;
    }
    if (caller != null) {
      try {
        caller.await(f, wait);
      } catch (TimeoutException | ExecutionException | CancellationException e) {
        // Completed (or still running): the run looks at the state itself.
      }
      return;
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("runWhileLeader interrupted");
    }
    time.runUntil(f::isDone, wait);
  }
}
