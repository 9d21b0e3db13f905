package dev.leasehold.runtime;

import java.util.concurrent.Executor;

/**
 * SharedThreads is threads that several runtimes share, as one runtime on them sees them: the
 * loop of {@code loop} and the dispatcher of {@code events}. A runtime's shutdown does not stop
 * them; only their owner does (an {@code EtcdSession}, or a simulated process).
 *
 * <p>Thread-safe when both schedulers are (a {@link ThreadScheduler} is).
 */
public record SharedThreads(Scheduler loop, Scheduler events) implements Scheduler {
  @Override
  public long nanoTime() {
    return loop.nanoTime();
  }

  @Override
  public void execute(Runnable task) {
    loop.execute(task);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    return loop.schedule(task, delayNanos);
  }

  @Override
  public Executor dispatcher() {
    return events.dispatcher();
  }

  @Override
  public boolean onDispatcher() {
    return events.onDispatcher();
  }

  @Override
  public void shutdown() {}

  @Override
  public void awaitTermination() {}
}
