package dev.leasehold.runtime;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watchdog is the leader-work watchdog: while a term lasts, it checks that the leader's work
 * calls {@code Leadership.heartbeat()} at least every {@code workStallTimeout}, and hands the
 * term to {@code stalled} (which resigns it with WORK_STALLED) when one is overdue. Its timer
 * re-arms for the last heartbeat's due time, so heartbeats cost no event-loop work.
 *
 * <p>Not thread-safe: confined to the runtime's event loop (heartbeats are volatile writes on
 * the term, read here).
 */
final class Watchdog {
  private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

  private final Scheduler scheduler;
  private final long timeoutNanos;
  private final String name;
  private final Consumer<TermHandle> stalled;
  private Scheduler.Cancellable timer;

  /** Watchdog is off when {@code timeoutNanos} is 0. */
  Watchdog(Scheduler scheduler, long timeoutNanos, String name, Consumer<TermHandle> stalled) {
    this.scheduler = scheduler;
    this.timeoutNanos = timeoutNanos;
    this.name = name;
    this.stalled = stalled;
  }

  /** watch starts watching a term that just began; the first heartbeat is due a timeout later. */
  void watch(TermHandle term) {
    stop();
    if (timeoutNanos > 0) {
      arm(term, term.lastHeartbeat() + timeoutNanos);
    }
  }

  /** stop stops watching (the term ended, or the elector closes); idempotent. */
  void stop() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  private void arm(TermHandle term, long dueAt) {
    timer = scheduler.schedule(() -> check(term), dueAt - scheduler.nanoTime());
  }

  private void check(TermHandle term) {
    timer = null;
    if (term.ended()) {
      return;
    }
    long now = scheduler.nanoTime();
    long last = term.lastHeartbeat();
    if (now - (last + timeoutNanos) < 0) {
      arm(term, last + timeoutNanos);
      return;
    }
    log.warn("{}: no heartbeat from the leader's work for {} ms (workStallTimeout {} ms): resigning",
        name, (now - last) / 1_000_000, timeoutNanos / 1_000_000);
    stalled.accept(term);
  }
}
