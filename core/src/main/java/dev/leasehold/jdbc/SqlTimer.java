package dev.leasehold.jdbc;

/**
 * SqlTimer names the SQL machine's timers; at most one of each kind is armed at a time, and
 * arming one replaces the previous one of its kind.
 *
 * <p>Immutable and thread-safe (an enum).
 */
enum SqlTimer {
  /** POLL fires a follower's next S1: the local re-read timer, a retry after errors, a hold-off's end. */
  POLL,
  /** RENEW fires the MASTER's next S4, TTL/6 after the send time of the last one that changed the row. */
  RENEW,
  /** DEADLINE fires at the MASTER's local deadline. */
  DEADLINE
}
