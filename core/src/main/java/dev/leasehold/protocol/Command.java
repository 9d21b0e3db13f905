package dev.leasehold.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;

/**
 * Command is what the machine asks its driver to do; the driver reports each outcome back
 * as an {@link Input} carrying the same operation id.
 *
 * <p>All commands are immutable records, safe to pass between threads.
 */
public sealed interface Command {
  /** Poll reads the key linearizably (follower). */
  record Poll(long op) implements Command {}

  /** GrantLease grants a lease of the given TTL. */
  record GrantLease(long op, long ttlSeconds) implements Command {}

  /**
   * Campaign commits {@code Txn(If CreateRevision(key) == 0, Then Put(key, candidateId,
   * lease), Else Get(key))}.
   */
  record Campaign(long op, long leaseId) implements Command {}

  /** KeepAlive sends one keep-alive for the lease; the machine recorded the send time. */
  record KeepAlive(long op, long leaseId) implements Command {}

  /** ConfirmRead reads the key linearizably to confirm the renewal just acknowledged. */
  record ConfirmRead(long op) implements Command {}

  /** ProbeLease asks whether the lease still exists (its time-to-live). */
  record ProbeLease(long op, long leaseId) implements Command {}

  /**
   * Revoke revokes the lease, retrying until etcd confirms or says it is gone, for at most
   * twice the lease's TTL (after which it has expired anyway), and not once close() began.
   */
  record Revoke(long leaseId) implements Command {}

  /** Watch watches the key from {@code fromRevision} with requireLeader. */
  record Watch(long watchId, long fromRevision) implements Command {}

  /** CancelWatch ends the watch. */
  record CancelWatch(long watchId) implements Command {}

  /** SetTimer arms the timer of this kind to fire at {@code atNanos}, replacing the previous one. */
  record SetTimer(TimerKind kind, long seq, long atNanos) implements Command {}

  /** CancelTimer disarms the timer of this kind. */
  record CancelTimer(TimerKind kind) implements Command {}

  /**
   * Publish reports a change to listeners; {@code leader} is null when no leader is known.
   */
  record Publish(ElectorState from, ElectorState to, Cause cause, LeaderInfo leader, long nanoTime)
      implements Command {}
}
