package dev.leasehold.jdbc;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Reachability;
import dev.leasehold.runtime.Roles;

/**
 * SqlRole handles one role's inputs ({@link SqlFollower}, {@link SqlCandidate},
 * {@link SqlMaster}); {@link SqlMachine#apply} picks the current one, after it has done the
 * bookkeeping every answer needs (awaited or late, session, reachability, orphans).
 *
 * <p>A role acts with the machine's shared parts (the choke point and its reachability, the orphans,
 * the woken lock, the step's effects), and reaches another role only through the machine's methods.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
abstract class SqlRole {
  final SqlMachine m;
  final SqlConfig config;
  final SqlEffects fx;
  final Roles roles;
  final Reachability reach;
  final Orphans orphans;
  final WokenLock woken;

  SqlRole(SqlMachine m) {
    this.m = m;
    this.config = m.config;
    this.fx = m.fx;
    this.roles = m.roles;
    this.reach = m.reach;
    this.orphans = m.orphans;
    this.woken = m.woken;
  }

  /** on handles an awaited answer. */
  abstract void on(SqlInput in, long now);

  /** onTimer handles a timer that went off for its latest arming. */
  abstract void onTimer(SqlTimer kind, long now);

  /** resign gives leadership up, the loss labelled {@code cause}; nothing to do unless MASTER. */
  void resign(Cause cause, long now) {}
}
