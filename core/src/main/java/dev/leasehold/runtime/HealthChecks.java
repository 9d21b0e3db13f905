package dev.leasehold.runtime;

import dev.leasehold.ElectorConfig;
import dev.leasehold.HealthCheck;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * HealthChecks polls the user's {@link HealthCheck} every {@code healthCheckInterval} of the
 * runtime's clock, runs it on a daemon thread of its own (never the event loop, never the
 * dispatcher: a slow check must hold back neither the protocol nor the listeners), and changes
 * its view only after {@code healthCheckThreshold} answers in a row against it. Each change
 * goes to the machine as one {@link Input.HealthChanged} through {@code submit}, with one log
 * line. A check still running at the next poll counts as an unhealthy answer; a check that
 * throws, too. The view starts healthy.
 *
 * <p>Thread safety: {@link #start} and {@link #stop} are called by the runtime; each poll
 * runs on the scheduler's loop, which owns the counters; the check runs on the checker thread,
 * whose answer the next poll reads through a {@link Future}.
 */
final class HealthChecks {
  private final HealthCheck check;
  private final long intervalNanos;
  private final int threshold;
  private final Scheduler scheduler;
  private final Consumer<Input> submit;
  private final Logger log;
  private final String name;
  private ExecutorService checker;
  private Scheduler.Cancellable next;
  private Future<String> running;
  private boolean healthy = true;
  private int against;
  private boolean stopped;

  HealthChecks(ElectorConfig config, Scheduler scheduler, Consumer<Input> submit, Logger log, String name) {
    this.check = config.healthCheck().orElseThrow();
    this.intervalNanos = config.healthCheckInterval().toNanos();
    this.threshold = config.healthCheckThreshold();
    this.scheduler = scheduler;
    this.submit = submit;
    this.log = log;
    this.name = name;
  }

  /** start begins polling: the first answer is asked for at once. */
  void start() {
    checker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "leasehold-health-" + name);
      t.setDaemon(true);
      return t;
    });
    scheduler.execute(this::poll);
  }

  /** stop ends polling; a check still running is interrupted. */
  void stop() {
    scheduler.execute(() -> {
      stopped = true;
      if (next != null) {
        next.cancel();
      }
    });
    if (checker != null) {
      checker.shutdownNow();
    }
  }

  // On the loop: reads the last answer, counts it, and asks for the next.
  private void poll() {
    if (stopped) {
      return;
    }
    if (running != null) {
      count(answer(running));
    }
    try {
      running = checker.submit(this::ask);
    } catch (RejectedExecutionException stopping) {
      return;
    }
    next = scheduler.schedule(this::poll, intervalNanos);
  }

  // The reason for an unhealthy answer, or null for a healthy one.
  private String answer(Future<String> f) {
    if (!f.isDone()) {
      f.cancel(true);
      return "the health check did not answer within " + intervalNanos / 1_000_000 + " ms";
    }
    try {
      return f.get();
    } catch (Exception e) {
      return "the health check failed: " + e;
    }
  }

  // On the checker thread.
  private String ask() {
    try {
      return check.check() ? null : "the health check answered false";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the health check was interrupted";
    } catch (Exception | Error e) {
      return "the health check threw " + e;
    }
  }

  private void count(String reason) {
    boolean answer = reason == null;
    if (answer == healthy) {
      against = 0;
      return;
    }
    if (++against < threshold) {
      return;
    }
    against = 0;
    healthy = answer;
    if (healthy) {
      log.info("{}: healthy again ({} answers in a row): back in the election", name, threshold);
    } else {
      log.warn("{}: unhealthy ({} answers in a row; last: {}): leaving the queue, and yielding if leading",
          name, threshold, reason);
    }
    submit.accept(new Input.HealthChanged(healthy, healthy ? "" : reason));
  }
}
