package dev.leasehold.etcd.protocol;

/**
 * TimerKind names the machine's timers; at most one of each kind is armed at a time, and
 * arming one replaces the previous one of its kind.
 *
 * <p>Immutable and thread-safe (an enum).
 */
public enum TimerKind {
  /** POLL fires a follower's next linearizable read of the key (also the retry after errors). */
  POLL,
  /** RENEW fires the held lease's next keep-alive, MASTER or standby (also the retry after a failed renewal). */
  RENEW,
  /** DEADLINE fires at the held lease's local deadline: the MASTER's, or a standby lease's. */
  DEADLINE,
  /** REWATCH re-creates a watch that failed, after a backoff. */
  REWATCH,
  /**
   * CAMPAIGN fires a follower's campaign for a free key after its rank in the queue's stagger
   * (PROTOCOL.md §4.5), if the key is still free then.
   */
  CAMPAIGN,
  /** PROBE ends the wait for a lease probe after the MASTER saw its key deleted. */
  PROBE,
  /**
   * PREEMPT fires when a MASTER's queue has shown a higher-priority candidate for its {@code
   * preemptAfter} (PROTOCOL.md §4.5); the MASTER then hands the key over to it.
   */
  PREEMPT
}
