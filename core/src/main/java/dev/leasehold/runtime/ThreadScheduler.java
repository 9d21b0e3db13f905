package dev.leasehold.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ThreadScheduler is the production {@link Scheduler}: one daemon thread for the event loop
 * and its timers, one for the dispatcher, on {@link System#nanoTime()}.
 *
 * <p>Thread-safe.
 */
public final class ThreadScheduler implements Scheduler {
  private static final Logger log = LoggerFactory.getLogger(ThreadScheduler.class);
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final ScheduledThreadPoolExecutor loop;
  private final ExecutorService dispatcher;
  private volatile Thread dispatcherThread;

  /** ThreadScheduler starts its two threads lazily, on the first task. */
  public ThreadScheduler() {
    int n = SEQ.incrementAndGet();
    ThreadFactory events = daemon("leasehold-events-" + n);
    this.dispatcher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = events.newThread(r);
              dispatcherThread = t;
              return t;
            });
    this.loop =
        new ScheduledThreadPoolExecutor(1, daemon("leasehold-loop-" + n)) {
          @Override
          protected void terminated() {
            // Events the loop's last tasks published are still delivered.
            dispatcher.shutdown();
          }
        };
    loop.setRemoveOnCancelPolicy(true);
    loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void execute(Runnable task) {
    loop.execute(task);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    var f = loop.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public Executor dispatcher() {
    return dispatcher;
  }

  @Override
  public boolean onDispatcher() {
    return Thread.currentThread() == dispatcherThread;
  }

  @Override
  public void shutdown() {
    loop.shutdown();
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    if (!loop.awaitTermination(5, TimeUnit.SECONDS)) {
      log.warn("event loop did not stop within 5 s");
      loop.shutdownNow();
    }
    if (!dispatcher.awaitTermination(5, TimeUnit.SECONDS)) {
      log.warn("event dispatcher did not stop within 5 s (a listener still running?)");
    }
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
