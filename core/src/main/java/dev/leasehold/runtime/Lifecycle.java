package dev.leasehold.runtime;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * Lifecycle is the start and close sequence every elector-like owner shares (an elector's
 * runtime, the fallback runtime, an etcd session): started once, closed once, a JVM shutdown
 * hook that closes it when asked for, and a close that is handed to the owner's event loop and
 * awaited with a bound.
 *
 * <pre>
 *   new ──start()──▶ started ──beginClose()──▶ closing ──finished()──▶ closed
 *    └──────────────────beginClose()──────────────▲
 * </pre>
 *
 * <p>The owner's close runs once, on its loop ({@link #closeOn}); {@link #finished()} completes
 * {@link #whenClosed()}; {@link #await} waits for it from a caller's thread, except from the
 * dispatcher, where a listener calling close() must not wait for a close that waits for the
 * dispatcher.
 *
 * <p>Thread-safe: every method may be called from any thread.
 */
public final class Lifecycle {
  private final String name;
  private final Logger log;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private volatile Thread shutdownHook;

  /**
   * Lifecycle labels its one warning with {@code name} and writes it to {@code log}.
   *
   * @param name the owner's name, in the warning
   * @param log the logger the warning goes to
   */
  public Lifecycle(String name, Logger log) {
    this.name = Objects.requireNonNull(name, "name");
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * start marks the owner started, once and only before any close; with {@code closeOnShutdown}
   * it registers a JVM shutdown hook that runs {@code close}.
   *
   * @param closeOnShutdown true to register the shutdown hook
   * @param close what the hook runs: the owner's close
   * @return true the first time, when the owner should start; false after that or after a close
   */
  public boolean start(boolean closeOnShutdown, Runnable close) {
    if (closing.get() || !started.compareAndSet(false, true)) {
      return false;
    }
    if (closeOnShutdown) {
      Thread hook = new Thread(close, "leasehold-shutdown-" + name);
      shutdownHook = hook;
      Runtime.getRuntime().addShutdownHook(hook);
    }
    return true;
  }

  /**
   * isStarted tells whether start() succeeded.
   *
   * @return true once start() returned true
   */
  public boolean isStarted() {
    return started.get();
  }

  /**
   * isClosing tells whether a close began.
   *
   * @return true once a close began, also after it finished
   */
  public boolean isClosing() {
    return closing.get();
  }

  /**
   * isRunning tells whether the owner started and no close began.
   *
   * @return true between a successful start() and the beginning of a close
   */
  public boolean isRunning() {
    return started.get() && !closing.get();
  }

  /**
   * beginClose marks the owner closing, once, and removes the shutdown hook (unless it is the
   * hook that closes).
   *
   * @return true the first time, when the owner should run its close sequence
   */
  public boolean beginClose() {
    if (!closing.compareAndSet(false, true)) {
      return false;
    }
    Thread hook = shutdownHook;
    if (hook != null && Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is exiting: the hook runs (or ran) the close itself.
      }
    }
    return true;
  }

  /**
   * closeOn begins the close (once) and hands {@code onLoop} to the owner's {@code loop}; when
   * the loop is gone already, {@code loopGone} runs at once on the caller.
   *
   * @param loop the owner's event loop
   * @param onLoop the close's work on the loop
   * @param loopGone what to run instead when the loop no longer accepts tasks
   * @return a stage that completes once the close finished
   */
  public CompletionStage<Void> closeOn(Executor loop, Runnable onLoop, Runnable loopGone) {
    if (beginClose()) {
      try {
        loop.execute(onLoop);
      } catch (RejectedExecutionException alreadyStopped) {
        loopGone.run();
      }
    }
    return whenClosed();
  }

  /** finished completes the close; later calls do nothing. */
  public void finished() {
    closed.complete(null);
  }

  /**
   * whenClosed completes once the close finished, without starting one.
   *
   * @return a stage that completes once the close finished
   */
  public CompletionStage<Void> whenClosed() {
    return closed.minimalCompletionStage();
  }

  /**
   * await waits up to {@code boundNanos} for the close to finish, then for {@code scheduler}'s
   * threads to end; it returns at once on the scheduler's dispatcher, and warns once when the
   * bound passes.
   *
   * @param scheduler the owner's scheduler, whose threads are awaited
   * @param boundNanos how long to wait for the close, in nanoseconds
   */
  public void await(Scheduler scheduler, long boundNanos) {
    if (scheduler.onDispatcher()) {
      return;
    }
    try {
      closed.get(boundNanos, TimeUnit.NANOSECONDS);
      scheduler.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      warnLate(e);
    }
  }

  /**
   * warnLate logs that a close did not finish within its bound.
   *
   * @param e what stopped the wait, logged with the warning
   */
  public void warnLate(Exception e) {
    log.warn("{}: close did not finish in time: {}", name, e.toString());
  }
}
