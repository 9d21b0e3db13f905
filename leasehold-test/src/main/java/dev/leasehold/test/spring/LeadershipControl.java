package dev.leasehold.test.spring;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.test.VirtualElector;
import dev.leasehold.test.VirtualFaults;
import dev.leasehold.test.VirtualTime;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * LeadershipControl starts and ends the terms of a {@link LeaseholdTest} context's elector. Each
 * call runs the elector's virtual time on the calling thread until the change has happened and
 * every listener of the elector (the context's {@code @LeaderOnly} interceptor, its event
 * bridges, its {@code LeadershipListener} beans) has heard it; between calls the time stands
 * still, so a term granted stays valid until the test revokes it.
 *
 * <p>The elector is real (core's runtime and protocol machine on the local store): a revoke is
 * a fault of the store or a resign, not a made-up event, so the elector reacts to it as in
 * production.
 *
 * <p>Thread-safe: calls are serialized; the beans' own threads (Spring's scheduler) may run
 * meanwhile and read the elector, as in production.
 */
public final class LeadershipControl {
  /** REVOCABLE are the causes {@link #revoke} can bring about. */
  public static final Set<Cause> REVOCABLE = Set.copyOf(EnumSet.of(
      Cause.RESIGNED, Cause.LEASE_REVOKED, Cause.KEY_DELETED, Cause.LEASE_EXPIRED_LOCALLY));

  private static final Duration MAX_WAIT = Duration.ofMinutes(5);

  private final VirtualElector elector;
  private final VirtualTime time;
  private final AtomicReference<LeadershipEvent> last = new AtomicReference<>();
  private boolean subscribed;
  private boolean storeDown;

  LeadershipControl(VirtualElector elector) {
    this.elector = elector;
    this.time = elector.store().time();
  }

  /**
   * elector is the context's elector.
   *
   * @return the elector that stands in for the application's
   */
  public VirtualElector elector() {
    return elector;
  }

  /**
   * grant runs virtual time until the elector leads and its listeners have heard ELECTED, and
   * returns the term; the current term when it already leads.
   *
    * @return the term now held
   * @throws IllegalStateException if the elector has not started (the context starts it) or
   *     does not win within five minutes of virtual time
   */
  public synchronized Leadership grant() {
    requireStarted();
    if (storeDown) {
      elector.store().local().faults().makeAvailable();
      storeDown = false;
    }
    subscribe();
    boolean won = time.runUntil(() -> {
      LeadershipEvent e = last.get();
      return e != null && e.isElected() && elector.leadership().filter(Leadership::isValid).isPresent();
    }, MAX_WAIT);
    if (!won) {
      throw new IllegalStateException("the elector did not win within " + MAX_WAIT + " of virtual time: "
          + elector.health());
    }
    return elector.leadership().orElseThrow();
  }

  /**
   * revoke ends the current term with {@code cause} and runs virtual time until its listeners
   * have heard the loss, which it returns: RESIGNED (the elector resigns), LEASE_REVOKED (the
   * lease expires at the store), KEY_DELETED (an operator deletes the key), or
   * LEASE_EXPIRED_LOCALLY (the store goes down until the next {@link #grant()}, and the term
   * runs out at its deadline).
   *
    * @param cause how the term ends: RESIGNED, LEASE_REVOKED, KEY_DELETED or LEASE_EXPIRED_LOCALLY
    * @return the event that ended the term
   * @throws IllegalArgumentException for any other cause
   * @throws IllegalStateException when the elector does not lead
   */
  public synchronized LeadershipEvent revoke(Cause cause) {
    Objects.requireNonNull(cause, "cause");
    if (!REVOCABLE.contains(cause)) {
      throw new IllegalArgumentException("cause must be one of " + REVOCABLE + ", but was " + cause);
    }
    Leadership term = elector.leadership().filter(Leadership::isValid).orElseThrow(
        () -> new IllegalStateException("the elector does not lead: grant() first (" + elector.state() + ")"));
    subscribe();
    VirtualFaults faults = elector.store().faults();
    String key = term.electionKey();
    switch (cause) {
      case RESIGNED -> elector.resign();
      case LEASE_REVOKED -> faults.expireLease(key);
      case KEY_DELETED -> faults.deleteKey(key);
      default -> {
        elector.store().local().faults().makeUnavailable();
        storeDown = true;
      }
    }
    boolean ended = time.runUntil(() -> {
      LeadershipEvent e = last.get();
      return e != null && e.isLost() && term.whenLost().toCompletableFuture().isDone();
    }, MAX_WAIT);
    if (!ended) {
      throw new IllegalStateException("the term did not end within " + MAX_WAIT + " of virtual time");
    }
    return last.get();
  }

  private void requireStarted() {
    if (elector.state() == dev.leasehold.ElectorState.STOPPED) {
      throw new IllegalStateException("the elector is closed");
    }
  }

  /**
   * subscribe adds the control's own listener, after the context's (they subscribe at start):
   * the dispatcher delivers in order, so once it has heard an event, they all have.
   */
  private void subscribe() {
    if (!subscribed) {
      subscribed = true;
      elector.onLeadershipChanged(last::set);
    }
  }
}
