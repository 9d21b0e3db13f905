package dev.leasehold.etcd;

import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import java.util.concurrent.Executor;

/**
 * SharedThreads is the session's threads as a runtime on it sees them: a loop, and the one dispatcher;
 * only the session stops them.
 *
 * <p>Thread-safe: every method hands over to the thread-safe {@link ThreadScheduler}s.
 */
record SharedThreads(ThreadScheduler loop, ThreadScheduler events) implements Scheduler {
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
