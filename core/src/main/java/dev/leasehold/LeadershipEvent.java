package dev.leasehold;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * LeadershipEvent is one change an elector reports: a transition of its role, a new leader
 * seen by a follower, or a change in its reach to the store.
 *
 * <p>Per listener, every {@link Cause#ELECTED} event (and a {@link Cause#SUBSCRIBED} event
 * with {@code to == MASTER}) is followed by exactly one event that leaves MASTER
 * ({@code from == MASTER} and {@code to != MASTER}: a loss cause, such as {@link Cause#RESIGNED},
 * {@link Cause#WORK_STALLED} or {@link Cause#CLOSED}) before the next ELECTED; while MASTER, only
 * {@link Cause#STORE_UNAVAILABLE} and {@link Cause#STORE_RECOVERED} come in between, from and to
 * MASTER. {@link Cause#FALLBACK} and {@link Cause#FALLBACK_ENDED} come only between terms
 * ({@code from == to}, neither MASTER), so a term begins and ends on one backend. Immutable and
 * thread-safe.
 *
 * @param from the role before the change
 * @param to the role after the change (equal to {@code from} for causes that do not move it)
 * @param cause why the change happened
 * @param leader the leader known after the change, if any
 * @param time the wall-clock time of the change, for reporting
 * @param nanoTime the elector's monotonic clock ({@link System#nanoTime()} unless injected)
 *     at the change; comparable between processes on one host
 * @param leadership the term this process just won; present only when {@code to == MASTER}
 * @param reason why the store failed, for {@link Cause#STORE_UNAVAILABLE} (for example
 *     "timed out after 750 ms"); a refusal only the operator can fix starts with
 *     "configuration error: " (for example "configuration error: permission denied: user
 *     'reader' may not write /k (etcd: permission denied)"); and for {@link Cause#FALLBACK} and
 *     {@link Cause#FALLBACK_ENDED}, which backends and why; empty for every other cause
 */
public record LeadershipEvent(
    ElectorState from,
    ElectorState to,
    Cause cause,
    Optional<LeaderInfo> leader,
    Instant time,
    long nanoTime,
    Optional<Leadership> leadership,
    Optional<String> reason) {

  /** Cause says why an event happened. */
  public enum Cause {
    /** SUBSCRIBED is the first event a new listener gets: the state at subscription. */
    SUBSCRIBED,
    /** ELECTED: this process won the compare-and-swap and is MASTER. */
    ELECTED,
    /** LEADER_CHANGED: a follower saw a different leader take the key. */
    LEADER_CHANGED,
    /** LEASE_EXPIRED_LOCALLY: the MASTER's local deadline passed before a renewal was confirmed. */
    LEASE_EXPIRED_LOCALLY,
    /** LEASE_REVOKED: the store reported the MASTER's lease gone (revoked from outside, or expired). */
    LEASE_REVOKED,
    /** KEY_DELETED: the key was deleted while the MASTER's lease was still alive. */
    KEY_DELETED,
    /** KEY_TAKEN: the key was found bound to another lease or another mod revision. */
    KEY_TAKEN,
    /** RESIGNED: {@code resign()} (the elector's or the term's) gave leadership up. */
    RESIGNED,
    /**
     * WORK_STALLED: the leader's work went {@code workStallTimeout} without a {@link
     * Leadership#heartbeat()}, so the elector resigned (and sits out the resign hold-off, so
     * another instance takes over). A loss, like RESIGNED; off unless configured.
     */
    WORK_STALLED,
    /**
     * PREEMPTED: a live candidate of a higher priority waited in the queue for the MASTER's
     * {@code preemptAfter}, so the MASTER handed the key over to it in the fenced handover
     * transaction ({@code ElectorConfig.preemptAfter()}, PROTOCOL.md §4.5). A loss, like
     * RESIGNED; off unless configured.
     */
    PREEMPTED,
    /**
     * TRANSFERRED: the MASTER handed its term to the candidate named in {@code
     * transferTo(candidateId)}, or in an operator's transfer request ({@code leasehold transfer}),
     * in the fenced handover transaction (PROTOCOL.md §4.5). A loss, like RESIGNED.
     */
    TRANSFERRED,
    /**
     * UNHEALTHY: the user's health check ({@code ElectorConfig.healthCheck()}) held this MASTER
     * unhealthy, so it handed its term to the next healthy candidate in its queue, in the fenced
     * handover transaction (PROTOCOL.md §4.5). A loss, like RESIGNED.
     */
    UNHEALTHY,
    /** CLOSED: {@code close()} stopped the elector; {@code to} is STOPPED. */
    CLOSED,
    /**
     * STORE_UNAVAILABLE: the store stopped giving the elector what it needs, for a while (a few
     * failed calls) or at once when it refused for a configuration error; reported once per
     * outage, not per retry.
     * On the SQL backend it also ends a MASTER's term whose session failed ({@code from ==
     * MASTER}): that event is a loss ({@link LeadershipEvent#isLost()}) and opens the outage.
     */
    STORE_UNAVAILABLE,
    /**
     * STORE_RECOVERED: the store gives the elector what it needs again after a STORE_UNAVAILABLE
     * (etcd: a read showing the key held, an answered campaign, a confirmed renewal); an answer
     * alone, such as a read-only user's successful read, is not enough.
     */
    STORE_RECOVERED,
    /**
     * FALLBACK: an elector built by {@code dev.leasehold.select.Backends} with a fallback policy
     * left a backend that stayed unreachable for its {@code fallbackAfter} and now elects on the
     * next one, whose guarantee may be weaker ({@link Leadership#guarantee()}); {@code reason}
     * names both backends and the failure. It never happens while MASTER: {@code from == to},
     * never MASTER. It also ends the outage of the backend left: a STORE_UNAVAILABLE follows
     * if the next backend fails too.
     */
    FALLBACK,
    /**
     * FALLBACK_ENDED: such an elector returned to its preferred backend, which answered again
     * for its {@code returnAfter}; the term on the weaker backend, if any, ended (RESIGNED) before
     * this event, and no term on the preferred backend began before it. {@code from == to},
     * never MASTER.
     */
    FALLBACK_ENDED;

    /**
     * isLoss is true for the causes that can end a term: LEASE_EXPIRED_LOCALLY, LEASE_REVOKED,
     * KEY_DELETED, KEY_TAKEN, RESIGNED, WORK_STALLED, PREEMPTED, TRANSFERRED, UNHEALTHY, CLOSED and STORE_UNAVAILABLE. A loss is the end of a
     * term, whatever ended it; an event is one exactly when {@link LeadershipEvent#isLost()}
     * ({@code from == MASTER && to != MASTER}). CLOSED and STORE_UNAVAILABLE end a term only
     * when they leave MASTER: a follower's CLOSED, and the usual STORE_UNAVAILABLE that keeps
     * the role (every backend but a SQL MASTER whose term session failed), end none.
     *
     * @return true when an event with this cause leaving MASTER ends a term
     */
    public boolean isLoss() {
      return switch (this) {
        case LEASE_EXPIRED_LOCALLY, LEASE_REVOKED, KEY_DELETED, KEY_TAKEN, RESIGNED, WORK_STALLED,
            PREEMPTED, TRANSFERRED, UNHEALTHY, CLOSED, STORE_UNAVAILABLE -> true;
        default -> false;
      };
    }
  }

  /**
   * LeadershipEvent rejects null components and a leadership handle on a non-MASTER event.
   *
   * @param from the role before, not null
   * @param to the role after, not null
   * @param cause the cause, not null; a loss cause when leaving MASTER
   * @param leader the known leader, or empty; not null
   * @param time the wall-clock time, not null
   * @param nanoTime the monotonic time
   * @param leadership the term won, present only when {@code to} is MASTER; not null
   * @param reason the reason, or empty; not null
   * @throws IllegalArgumentException when an event leaves MASTER for no loss cause, a FALLBACK or
   *     FALLBACK_ENDED event moves the role or involves MASTER, or {@code leadership} is present on
   *     an event not to MASTER
   */
  public LeadershipEvent {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(leader, "leader");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(leadership, "leadership");
    Objects.requireNonNull(reason, "reason");
    if (from == ElectorState.MASTER && to != ElectorState.MASTER && !cause.isLoss()) {
      throw new IllegalArgumentException("an event leaving MASTER needs a loss cause, but was " + cause);
    }
    if ((cause == Cause.FALLBACK || cause == Cause.FALLBACK_ENDED)
        && (from != to || from == ElectorState.MASTER)) {
      throw new IllegalArgumentException(
          cause + " happens only between terms (from == to, not MASTER), but was " + from + " -> " + to);
    }
    if (leadership.isPresent() && to != ElectorState.MASTER) {
      throw new IllegalArgumentException("leadership present on an event to " + to);
    }
  }

  /**
   * leaderId is the known leader's candidate id, if a leader is known.
   *
   * @return the leader's candidate id, or empty when no leader is known
   */
  public Optional<String> leaderId() {
    return leader.map(LeaderInfo::candidateId);
  }

  /**
   * fencingToken is the known leader's fencing token, if a leader is known.
   *
   * @return the leader's fencing token, or empty when no leader is known
   */
  public OptionalLong fencingToken() {
    return leader.isPresent() ? OptionalLong.of(leader.get().fencingToken()) : OptionalLong.empty();
  }

  /**
   * isElected is true when this event makes (or, for SUBSCRIBED, finds) this process MASTER.
   *
   * @return true for ELECTED, and for SUBSCRIBED to MASTER
   */
  public boolean isElected() {
    return to == ElectorState.MASTER && from != ElectorState.MASTER
        || cause == Cause.SUBSCRIBED && to == ElectorState.MASTER;
  }

  /**
   * isLost is true when this event ends this process's term of leadership (a loss): it
   * leaves MASTER, for one of the {@link Cause#isLoss()} causes. RESIGNED, WORK_STALLED and
   * CLOSED are losses too; a follower's CLOSED is not, as it ends no term.
   *
   * @return true when this event ends a term
   */
  public boolean isLost() {
    return from == ElectorState.MASTER && to != ElectorState.MASTER;
  }
}
