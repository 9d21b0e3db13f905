package dev.leasehold.jdbc;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;

/**
 * SqlCommand is what the SQL machine asks of its store: the statements of PROTOCOL.md's SQL
 * section, each run on the term session, one at a time, in the order sent. Every command but
 * {@link EndWait} is a {@link StoreCall}: exactly one {@link SqlInput} answers it, carrying its
 * {@code op}, and {@link SqlInput.Failed} when it failed or timed out, after which the store has
 * ended the session (its named locks went with it) and opens a new one for the next statement.
 * The store knows the table, the election name, the candidate id and the TTL; a command carries
 * only what changes.
 *
 * <p>All commands are immutable records, safe to pass between threads.
 */
sealed interface SqlCommand extends Command {
  /**
   * Statement is every command the store answers: one {@link SqlInput} carrying its {@code op},
   * {@link SqlInput.Failed} when it failed, timed out or was refused.
   */
  sealed interface Statement extends SqlCommand, StoreCall {
    /** op is the operation id its answer carries. */
    long op();

    @Override
    default Input failed(String reason) {
      return new SqlInput.Failed(op(), reason);
    }
  }

  /** Read is S1; answered by {@link SqlInput.RowRead}. */
  record Read(long op) implements Statement {}

  /**
   * Lock is S6 {@code GET_LOCK(L(holder), 0)} on a CANDIDATE's fresh token; answered by
   * {@link SqlInput.Locked} (1: acquired; 0: someone holds it; NULL: failed).
   */
  record Lock(long op, HolderToken holder) implements Statement {}

  /**
   * Await is S6 {@code GET_LOCK(L(holder), t)}, a FOLLOWER's wake-up wait on the holder's lock
   * for {@code waitNanos} (MySQL: rounded up to whole seconds); answered by
   * {@link SqlInput.Woken}. It is bounded by its wait plus the RPC timeout.
   */
  record Await(long op, HolderToken holder, long waitNanos) implements Statement {
    @Override
    public long timeoutNanos(long rpcTimeoutNanos) {
      return waitNanos + rpcTimeoutNanos;
    }
  }

  /**
   * Unlock is S6 {@code RELEASE_LOCK(L(holder))}; answered by {@link SqlInput.Unlocked}
   * whatever it returns. With no session open the store answers at once (session 0): the lock
   * died with its session.
   */
  record Unlock(long op, HolderToken holder) implements Statement {}

  /**
   * Take is S2 when {@code basis} is null (insert with {@code epoch}), else S3 with
   * {@code (h₀, v₀) = (basis.holder, basis.version)} (the row's epoch becomes
   * {@code basis.epoch + 1 == epoch}); answered by {@link SqlInput.Taken}, won when one row
   * changed (a duplicate key, error 1062, is a loss).
   */
  record Take(long op, HolderToken holder, long epoch, LeaseRow basis) implements Statement {}

  /** Renew is S4 for {@code (holder, epoch)}; answered by {@link SqlInput.Renewed}. */
  record Renew(long op, HolderToken holder, long epoch) implements Statement {}

  /** Release is S5 for {@code (holder, epoch)}; answered by {@link SqlInput.Released}. */
  record Release(long op, HolderToken holder, long epoch) implements Statement {}

  /**
   * EndWait is sent at close, with no reply of its own: the store ends an {@link Await} in
   * progress (by ending the session, so the Await fails) and fails any Await it has not yet
   * started, so that close need not sit out a poll interval.
   */
  record EndWait() implements SqlCommand {}
}
