package dev.leasehold.jdbc;

import dev.leasehold.runtime.Input;

/**
 * SqlInput is the store's answer to one {@link SqlCommand}, carrying its {@code op}. Every
 * success names the {@code session} it ran on: a number the store gives each session it opens,
 * increasing from 1; 0 only for an {@link Unlocked} answered without a session. A session's
 * named locks live exactly as long as it does, so a new number means the old session's locks
 * are gone.
 *
 * <p>All inputs are immutable records, safe to pass between threads.
 */
sealed interface SqlInput extends Input {
  /** op is the operation id of the command this answers. */
  long op();

  /** session is the session the statement ran on; 0 when none (a failure, or an unlock without one). */
  default long session() {
    return 0;
  }

  /** RowRead is S1's row, or null when there is none. */
  record RowRead(long op, long session, LeaseRow row) implements SqlInput {}

  /** Locked is a CANDIDATE's GET_LOCK(L(h), 0): {@code acquired} when it returned 1. */
  record Locked(long op, long session, boolean acquired) implements SqlInput {}

  /** Woken is a FOLLOWER's GET_LOCK(L(h), t): {@code acquired} when it returned 1, false on timeout (0). */
  record Woken(long op, long session, boolean acquired) implements SqlInput {}

  /** Unlocked is RELEASE_LOCK done (whatever it returned). */
  record Unlocked(long op, long session) implements SqlInput {}

  /** Taken is S2 or S3: {@code won} when one row changed. */
  record Taken(long op, long session, boolean won) implements SqlInput {}

  /** Renewed is S4: {@code changed} when one row changed. */
  record Renewed(long op, long session, boolean changed) implements SqlInput {}

  /** Released is S5: {@code changed} when one row changed. */
  record Released(long op, long session, boolean changed) implements SqlInput {}

  /**
   * Failed is a statement that failed, timed out or was refused (a server check); its outcome
   * is unknown, and the session it ran on is over.
   */
  record Failed(long op, String reason) implements SqlInput, Input.Failed {}
}
