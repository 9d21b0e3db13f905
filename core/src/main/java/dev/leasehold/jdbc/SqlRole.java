package dev.leasehold.jdbc;

import dev.leasehold.LeadershipEvent.Cause;

/**
 * SqlRole handles one role's inputs ({@link SqlFollower}, {@link SqlCandidate},
 * {@link SqlMaster}); {@link SqlMachine#step} picks the current one, after it has done the
 * bookkeeping every answer needs (awaited or late, session, reachability, orphans).
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
abstract class SqlRole {
  final SqlMachine m;

  SqlRole(SqlMachine m) {
    this.m = m;
  }

  /** on handles an awaited answer. */
  abstract void on(SqlInput in, long now);

  /** onTimer handles a timer that went off for its latest arming. */
  abstract void onTimer(SqlTimer kind, long now);

  /** resign gives leadership up, the loss labelled {@code cause}; nothing to do unless MASTER. */
  void resign(Cause cause, long now) {}
}
