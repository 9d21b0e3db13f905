package dev.leasehold.select;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent.Cause;

import java.util.concurrent.RejectedExecutionException;

/**
 * Switch is one move of a {@link FallbackRuntime} off its active elector: to another tier
 * (cause FALLBACK or FALLBACK_ENDED) or to nothing (cause CLOSED, the composite's close). It
 * resigns the elector if it leads (never for a close, which ends the term itself), closes it,
 * and reports done only once both the close has completed and the elector's CLOSED event has
 * reached the loop: then that elector's term, if any, is over, its listeners were told, and an
 * elector on the next tier may start.
 *
 * <p>Not thread-safe: confined to the runtime's event loop (completions hop onto it).
 */
final class Switch {
  final LeaderElector leaving;
  final int target;
  final Cause cause;
  final String reason;
  private final FallbackRuntime runtime;
  private boolean closeDone;
  private boolean closedEvent;

  Switch(FallbackRuntime runtime, LeaderElector leaving, int target, Cause cause, String reason) {
    this.runtime = runtime;
    this.leaving = leaving;
    this.target = target;
    this.cause = cause;
    this.reason = reason;
    if (cause != Cause.CLOSED && runtime.toldRole() == ElectorState.MASTER) {
      // Only a return leaves a leading elector: its term ends as RESIGNED, before its close.
      leaving.resign();
    }
    leaving.closeAsync().whenComplete((v, t) -> runtime.execute(this::closed));
  }

  /** closedEventArrived notes that the leaving elector's last event (to STOPPED) was handled. */
  void closedEventArrived() {
    closedEvent = true;
    maybeDone();
  }

  private void closed() {
    closeDone = true;
    if (!closedEvent) {
      // The event travels through the elector's dispatcher and may trail its close a little.
      try {
        runtime.scheduler.schedule(
            () -> {
              closedEvent = true;
              maybeDone();
            },
            FallbackRuntime.graceNanos());
      } catch (RejectedExecutionException stopped) {
        // The composite's loop is gone: nothing waits for this switch any more.
      }
    }
    maybeDone();
  }

  private void maybeDone() {
    if (closeDone && closedEvent) {
      runtime.switchDone(this);
    }
  }
}
