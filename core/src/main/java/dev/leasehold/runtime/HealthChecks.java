package dev.leasehold.runtime;

import dev.leasehold.ElectorConfig;
import dev.leasehold.HealthCheck;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * HealthChecks polls the user's {@link HealthCheck} every {@code healthCheckInterval} of the
 * runtime's clock, runs it on the scheduler's {@link Scheduler#worker} (a daemon thread of its
 * own in production; never the event loop, never the dispatcher: a slow check must hold back neither the protocol nor the listeners), and changes
 * its view only after {@code healthCheckThreshold} answers in a row against it. Each change
 * goes to the machine as one {@link Input.HealthChanged} through {@code submit}, with one log
 * line. A check still running at the next poll counts as an unhealthy answer; a check that
 * throws, too. The view starts healthy.
 *
 * <p>A spreading {@code EtcdSession} polls its health check with one of these too, on its
 * lease's loop, and yields by moving its elections (PROTOCOL.md §11.7).
 *
 * <p>Thread safety: {@link #start} and {@link #stop} are called by the runtime (or the session); each poll
 * runs on the scheduler's loop, which owns the counters; the check runs on the checker thread,
 * whose answer the next poll reads through a {@link Future}.
 */
public final class HealthChecks {
  private final HealthCheck check;
  private final long intervalNanos;
  private final int threshold;
  private final Scheduler scheduler;
  private final Consumer<Input> submit;
  private final Logger log;
  private final String name;
  private final String yielding;
  private final String back;
  private ExecutorService checker;
  private Scheduler.Cancellable next;
  private Future<String> running;
  private boolean healthy = true;
  private int against;
  private boolean stopped;

  HealthChecks(ElectorConfig config, Scheduler scheduler, Consumer<Input> submit, Logger log, String name) {
    this(config, scheduler, submit, log, name, "leaving the queue, and yielding if leading", "back in the election");
  }

  /**
   * HealthChecks polls {@code config}'s health check (which must be set) on {@code scheduler}'s
   * loop and a worker thread of its own, and hands each change of its view to {@code submit}, on
   * that loop; its log lines say what the owner does about a change ({@code yielding} when
   * unhealthy, {@code back} when healthy again).
   *
   * @param config the settings: the check, its interval and threshold
   * @param scheduler the loop the polls run on, and the source of the checker thread
   * @param submit takes each change of the view, on the loop
   * @param log where the one line per change goes
   * @param name the owner's name, in the log lines and the checker thread's name
   * @param yielding what the owner does once unhealthy, for the log line
   * @param back what the owner does once healthy again, for the log line
   */
  public HealthChecks(ElectorConfig config, Scheduler scheduler, Consumer<Input> submit, Logger log, String name,
      String yielding, String back) {
    this.yielding = yielding;
    this.back = back;
    this.check = config.healthCheck().orElseThrow();
    this.intervalNanos = config.healthCheckInterval().toNanos();
    this.threshold = config.healthCheckThreshold();
    this.scheduler = scheduler;
    this.submit = submit;
    this.log = log;
    this.name = name;
  }

  /** start begins polling: the first answer is asked for at once. */
  public void start() {
    checker = scheduler.worker("leasehold-health-" + name);
    scheduler.execute(this::poll);
  }

  /** stop ends polling; a check still running is interrupted. */
  public void stop() {
    try {
      scheduler.execute(() -> {
        stopped = true;
        if (next != null) {
          next.cancel();
        }
      });
    } catch (RejectedExecutionException loopGone) {
      // The loop has stopped: no poll runs any more.
    }
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
      log.info("{}: healthy again ({} answers in a row): {}", name, threshold, back);
    } else {
      log.warn("{}: unhealthy ({} answers in a row; last: {}): {}", name, threshold, reason, yielding);
    }
    submit.accept(new Input.HealthChanged(healthy, healthy ? "" : reason));
  }
}
