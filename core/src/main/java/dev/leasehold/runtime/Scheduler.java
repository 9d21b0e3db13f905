package dev.leasehold.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Scheduler is where an elector's runtime runs: its event loop (one task at a time, in
 * submission order), timers on that loop, the monotonic clock they use, and the dispatcher
 * that delivers events to listeners. {@link ThreadScheduler} runs on two daemon threads; a
 * simulation supplies virtual time.
 *
 * <p>Thread-safe: every method may be called from any thread.
 */
public interface Scheduler {
  /**
   * nanoTime is the monotonic clock in nanoseconds (differences only are meaningful).
   *
   * @return the current monotonic time, in nanoseconds
   */
  long nanoTime();

  /**
   * execute runs {@code task} on the event loop after the tasks already submitted.
   *
   * @param task the task, run on the event loop
   * @throws java.util.concurrent.RejectedExecutionException once {@link #shutdown()} began
   */
  void execute(Runnable task);

  /**
   * schedule runs {@code task} on the event loop after {@code delayNanos}, unless cancelled.
   *
   * @param task the task, run on the event loop
   * @param delayNanos the delay in nanoseconds; zero or less runs it as soon as the loop can
   * @return the armed timer, to cancel it
   * @throws java.util.concurrent.RejectedExecutionException once {@link #shutdown()} began
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /**
   * dispatcher is the executor that delivers events; never the event loop.
   *
   * @return the dispatcher's executor
   */
  Executor dispatcher();

  /**
   * onDispatcher is true when called on the dispatcher's thread.
   *
   * @return true on the dispatcher's thread
   */
  boolean onDispatcher();

  /**
   * shutdown stops accepting tasks; tasks already submitted still run, timers do not, and
   * the dispatcher stops once the loop has finished.
   */
  void shutdown();

  /**
   * awaitTermination waits (bounded) for the threads to end; never from the dispatcher.
   *
   * @throws InterruptedException if the waiting thread is interrupted
   */
  void awaitTermination() throws InterruptedException;

  /**
   * worker makes an executor for user code that may block (a health check), neither the event
   * loop nor the dispatcher: by default one daemon thread named {@code name}; a simulation runs
   * its tasks on virtual time. The caller shuts it down.
   *
   * @param name the thread's name
   * @return a new executor of one thread
   */
  default ExecutorService worker(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /** Cancellable is an armed timer. */
  interface Cancellable {
    /** cancel keeps the timer from running if it has not yet; idempotent. */
    void cancel();
  }
}
