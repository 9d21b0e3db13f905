package dev.leasehold.test;

import dev.leasehold.runtime.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * VirtualExecutor is a single-threaded {@link ScheduledExecutorService} on virtual time: one
 * simulated thread of an instance, on that instance's clock, held by a pause of the instance.
 * Code that schedules its work on an executor runs on it unchanged; a task runs to its end
 * before the next event, so it must not block (see {@link VirtualTime}).
 *
 * <p>A periodic task that throws is not run again, as with {@code ScheduledThreadPoolExecutor}.
 * {@link #awaitTermination} does not run virtual time: it answers at once whether the executor
 * has terminated.
 *
 * <p>Not thread-safe: the test thread that drives the time uses it, and the code it runs.
 */
final class VirtualExecutor extends AbstractExecutorService implements ScheduledExecutorService {
  private final Scheduler thread;
  private final List<Task<?>> pending = new ArrayList<>();
  private boolean shutdown;

  VirtualExecutor(Scheduler thread) {
    this.thread = thread;
  }

  @Override
  public void execute(Runnable command) {
    Objects.requireNonNull(command, "command");
    schedule(Executors.callable(command), 0, 0, false);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    return schedule(Executors.callable(command), unit.toNanos(delay), 0, false);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Objects.requireNonNull(callable, "callable");
    return schedule(callable, unit.toNanos(delay), 0, false);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return periodic(command, initialDelay, period, unit, true);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return periodic(command, initialDelay, delay, unit, false);
  }

  private ScheduledFuture<?> periodic(
      Runnable command, long initialDelay, long period, TimeUnit unit, boolean fixedRate) {
    Objects.requireNonNull(command, "command");
    if (period <= 0) {
      throw new IllegalArgumentException("period must be > 0, but was " + period + " " + unit);
    }
    return schedule(Executors.callable(command), unit.toNanos(initialDelay), unit.toNanos(period), fixedRate);
  }

  private <V> ScheduledFuture<V> schedule(Callable<V> work, long delayNanos, long periodNanos, boolean fixedRate) {
    if (shutdown) {
      throw new RejectedExecutionException("executor shut down");
    }
    Task<V> t = new Task<>(work, thread.nanoTime() + Math.max(0, delayNanos), periodNanos, fixedRate);
    pending.add(t);
    t.arm();
    return t;
  }

  @Override
  public void shutdown() {
    shutdown = true;
    // Delayed and periodic tasks do not outlive a shutdown (ScheduledThreadPoolExecutor's defaults
    // would keep delayed one-shots; a test that shuts down means stop).
    for (Task<?> t : List.copyOf(pending)) {
      t.cancel(false);
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    List<Runnable> left = new ArrayList<>(pending);
    shutdown();
    return left;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && pending.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }

  /** Task is one submitted task: a one-shot, or a periodic one re-armed after each run. */
  private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    private final long periodNanos;
    private final boolean fixedRate;
    private long dueAt;
    private Scheduler.Cancellable timer;

    Task(Callable<V> work, long dueAt, long periodNanos, boolean fixedRate) {
      super(work);
      this.dueAt = dueAt;
      this.periodNanos = periodNanos;
      this.fixedRate = fixedRate;
    }

    void arm() {
      timer = thread.schedule(this::fire, dueAt - thread.nanoTime());
    }

    private void fire() {
      timer = null;
      if (isDone()) {
        return;
      }
      if (periodNanos == 0) {
        run();
        pending.remove(this);
        return;
      }
      if (!runAndReset()) {
        pending.remove(this);
        return;
      }
      dueAt = fixedRate ? dueAt + periodNanos : thread.nanoTime() + periodNanos;
      if (shutdown) {
        cancel(false);
      } else {
        arm();
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(false);
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
      pending.remove(this);
      return cancelled;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueAt - thread.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
