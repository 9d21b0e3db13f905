package dev.leasehold.etcd.protocol;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Input;

/**
 * SessionInput is what reaches one {@link SessionElection} from the session it rides on
 * (PROTOCOL.md §11): the session's lease, the key as the session's one watch saw it, and the
 * replies to its fenced deletes. Campaign replies are the {@link EtcdInput} campaign records.
 *
 * <p>All inputs are immutable records, safe to pass between threads.
 */
public sealed interface SessionInput extends Input {
  /**
   * Live says the session holds lease {@code leaseId} and etcd surely keeps it until the local
   * time {@code deadline}; {@code renewalSentAt} is the send time the deadline counts from. Sent
   * when an election joins, when a lease is granted and after every confirmed renewal.
   */
  record Live(long leaseId, long deadline, long renewalSentAt) implements SessionInput {}

  /**
   * Ended says the session's lease {@code leaseId} ended: its deadline passed ({@code
   * LEASE_EXPIRED_LOCALLY}), etcd said it is gone ({@code LEASE_REVOKED}), or the session closed
   * ({@code CLOSED}). Every key bound to it dies with it, or with its revocation.
   */
  record Ended(long leaseId, Cause cause) implements SessionInput {}

  /**
   * KeySeen is the election's key as of {@code revision}, from the session's watch or its
   * re-read after a watch restart; {@code key} is null when the key is absent.
   */
  record KeySeen(KeyRecord key, long revision) implements SessionInput {}

  /** Deleted answers a fenced delete: {@code applied} when the key had the token's mod revision. */
  record Deleted(long op, boolean applied, long revision) implements SessionInput {}

  /**
   * Unavailable says the session's lease calls have been failing ({@link
   * SessionCommand.Unavailable}); a failure of the session's, so the election's runtime logs
   * its reason and gives it to the STORE_UNAVAILABLE event.
   */
  record Unavailable(String reason) implements SessionInput, Input.Failed {}

  /** Recovered says the session's lease made progress again after {@link Unavailable}. */
  record Recovered() implements SessionInput {}

  /** DeleteFailed says a fenced delete failed or timed out: it may still have been applied. */
  record DeleteFailed(long op, String reason) implements SessionInput, Input.Failed {}

  /**
   * MoveTo asks the election, if it still leads the term {@code token}, to hand its key to the
   * member {@code to} (PROTOCOL.md §11.7): the session's spreading found this session above its
   * target and {@code to} below.
   */
  record MoveTo(SessionMember to, long token) implements SessionInput {}

  /**
   * Transferred answers a move: {@code applied} when the key still had the token's mod revision
   * and the target's member key was still there; {@code revision} is the store's revision then.
   */
  record Transferred(long op, boolean applied, long revision) implements SessionInput {}

  /** TransferFailed says a move failed or timed out: it may still have been applied. */
  record TransferFailed(long op, String reason) implements SessionInput, Input.Failed {}

  /**
   * Preferred says whether this session is the member that campaigns at once when the key is
   * free (PROTOCOL.md §11.7, {@code Spread.preferred}); one that is not holds back a poll
   * interval first. Sent by a spreading session when it changes.
   */
  record Preferred(boolean preferred) implements SessionInput {}
}
