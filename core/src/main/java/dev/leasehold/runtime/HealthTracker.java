package dev.leasehold.runtime;

import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * HealthTracker keeps what {@link ElectorHealth} reports: after every step the machine's role,
 * leader and the send time of its lease's last confirmed renewal; from the events, whether the
 * store is reachable and why not. It also spots each confirmed renewal and reports its round
 * trip to the {@code onRenewal} listeners.
 *
 * <p>Thread safety: {@link #afterStep} and {@link #onEvent} are called on the event loop only;
 * they publish one immutable record through a volatile field, which {@link #health} reads on
 * any thread without a lock.
 */
final class HealthTracker {
  private record Base(ElectorState role, LeaderInfo leader, long renewalSentAt, String failure) {}

  private final String elector;
  private final String backend;
  private final LongSupplier clock;
  private final RenewalListeners renewals;
  // Whether the election has a queue of its own to yield to (a session's election has none).
  private final boolean queued;
  private volatile Base base = new Base(ElectorState.FOLLOWER, null, Long.MIN_VALUE, null);
  // Why the user's health check holds this candidate unhealthy, or null.
  private volatile String unhealthy;

  // Loop-confined.
  private long lastSentAt = Long.MIN_VALUE;

  /**
   * HealthTracker words an unhealthy view for an election with a queue of its own ({@code
   * queued}), or for an election of a spreading session, whose session hands its term on.
   */
  HealthTracker(String elector, String backend, LongSupplier clock, RenewalListeners renewals, boolean queued) {
    this.queued = queued;
    this.elector = elector;
    this.backend = backend;
    this.clock = clock;
    this.renewals = renewals;
  }

  /**
   * afterStep records the machine's state after a step at {@code now}, and reports the round
   * trip (send to confirmation) of a renewal the step confirmed.
   */
  void afterStep(ElectorState role, LeaderInfo leader, long renewalSentAt, long now) {
    if (renewalSentAt != Long.MIN_VALUE && renewalSentAt != lastSentAt) {
      long roundTrip = Math.max(0, now - renewalSentAt);
      renewals.report(role, roundTrip, now);
      FlightEvents.Renewal event = new FlightEvents.Renewal();
      if (event.shouldCommit()) {
        event.elector = elector;
        event.role = role.name();
        event.roundTripNanos = roundTrip;
        event.nanoTime = System.nanoTime();
        event.commit();
      }
    }
    lastSentAt = renewalSentAt;
    long sent = role == ElectorState.STOPPED ? Long.MIN_VALUE : renewalSentAt;
    Base b = base;
    if (b.role() != role || b.leader() != leader || b.renewalSentAt() != sent) {
      base = new Base(role, leader, sent, b.failure());
    }
  }

  /** onEvent notes the store's reachability from STORE_UNAVAILABLE and STORE_RECOVERED. */
  void onEvent(LeadershipEvent e) {
    Base b = base;
    if (e.cause() == Cause.STORE_UNAVAILABLE) {
      base = new Base(b.role(), b.leader(), b.renewalSentAt(), e.reason().orElse("unknown"));
    } else if (e.cause() == Cause.STORE_RECOVERED) {
      base = new Base(b.role(), b.leader(), b.renewalSentAt(), null);
    }
  }

  /** unhealthy records the user's health check's view: its reason, or null when healthy. */
  void unhealthy(String reason) {
    unhealthy = reason;
  }

  /** health is the snapshot at call time; the renewal's age is read on the clock now. */
  ElectorHealth health(boolean running) {
    Base b = base;
    Optional<Duration> since =
        b.renewalSentAt() == Long.MIN_VALUE
            ? Optional.empty()
            : Optional.of(Duration.ofNanos(Math.max(0, clock.getAsLong() - b.renewalSentAt())));
    String sick = unhealthy;
    Optional<String> yielding = sick == null || b.role() == ElectorState.STOPPED
        ? Optional.empty()
        : Optional.of(sick + (b.role() == ElectorState.MASTER
            ? (queued ? "; still leading: no healthy candidate in the queue to yield to"
                : "; still leading until its session hands the term to a healthy member (none yet)")
            : (queued ? "; out of the queue, not campaigning" : "; not campaigning")));
    return new ElectorHealth(
        b.role(), running, backend, Optional.ofNullable(b.leader()), since, b.failure() == null,
        Optional.ofNullable(b.failure()), Optional.empty(), yielding);
  }
}
