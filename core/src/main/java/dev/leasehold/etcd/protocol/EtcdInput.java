package dev.leasehold.etcd.protocol;

import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import java.util.List;

/**
 * EtcdInput is what etcd tells the machine: the reply to a call it commanded, or a watch
 * notification. User requests and timers are the runtime's {@link Input}s.
 *
 * <p>Results carry the operation id of the command that caused them; the machine ignores
 * results of operations it no longer waits for. All inputs are immutable records, safe to
 * pass between threads.
 */
public sealed interface EtcdInput extends Input {
  /**
   * PollResult is a linearizable read of the key ({@code key} null when it is absent) and, when
   * asked for, of the participants in queue order ({@code participants} null when not asked).
   */
  record PollResult(long op, KeyRecord key, long revision, List<Participant> participants)
      implements EtcdInput {
    /**
     * PollResult copies the participants.
     *
     * @param op the operation id of the {@link EtcdCommand.Poll} this answers
     * @param key the key, or null when it is absent
     * @param revision the store's revision at the read
     * @param participants the queue, head first, or null when not asked for
     */
    public PollResult {
      participants = participants == null ? null : List.copyOf(participants);
    }

    /**
     * PollResult is a read of the key alone.
     *
     * @param op the operation id of the {@link EtcdCommand.Poll} this answers
     * @param key the key, or null when it is absent
     * @param revision the store's revision at the read
     */
    public PollResult(long op, KeyRecord key, long revision) {
      this(op, key, revision, null);
    }
  }

  /** PollFailed is a read that failed or timed out. */
  record PollFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** LeaseGranted is a successful lease grant with the TTL etcd actually granted. */
  record LeaseGranted(long op, long leaseId, long ttlSeconds) implements EtcdInput {}

  /** GrantFailed is a lease grant that failed or timed out. */
  record GrantFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** CampaignWon is a committed compare-and-swap: the key was created at {@code createRevision}. */
  record CampaignWon(long op, long createRevision) implements EtcdInput {}

  /**
   * CampaignLost is a compare-and-swap whose Else branch read the current holder; {@code
   * enlisted} when that branch also put the candidate's participant key (an enlisting campaign).
   */
  record CampaignLost(long op, KeyRecord holder, long revision, boolean enlisted) implements EtcdInput {
    /** CampaignLost is the answer of a campaign that did not enlist. */
    public CampaignLost(long op, KeyRecord holder, long revision) {
      this(op, holder, revision, false);
    }
  }

  /**
   * CampaignFailed is a compare-and-swap whose outcome is unknown (error or timeout): it may
   * have been applied.
   */
  record CampaignFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** Enlisted is a participant key put at {@code revision}. */
  record Enlisted(long op, long revision) implements EtcdInput {}

  /** EnlistFailed is a participant key put that failed or timed out (it may have been applied). */
  record EnlistFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** Ranked is the number of participants ahead, read at {@code revision}. */
  record Ranked(long op, long ahead, long revision) implements EtcdInput {}

  /** RankFailed is a count of the queue that failed or timed out. */
  record RankFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** HandedOver is a committed handover: the key now belongs to the successor, since {@code revision}. */
  record HandedOver(long op, long revision) implements EtcdInput {}

  /**
   * HandoverRefused is a handover whose compare failed: the key is no longer this term's, or
   * the successor left the queue; {@code key} is the key as it stands (null when absent).
   */
  record HandoverRefused(long op, KeyRecord key, long revision) implements EtcdInput {}

  /** HandoverFailed is a handover whose outcome is unknown (error or timeout). */
  record HandoverFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** KeepAliveAcked is a keep-alive reply with the renewed TTL and the replying member's raft term. */
  record KeepAliveAcked(long op, long ttlSeconds, long raftTerm) implements EtcdInput {}

  /** KeepAliveFailed is a failed keep-alive; {@code leaseNotFound} when etcd says the lease is gone. */
  record KeepAliveFailed(long op, boolean leaseNotFound, String reason)
      implements EtcdInput, Input.Failed {}

  /**
   * ConfirmRead is the linearizable read that confirms a renewal; {@code key} null when absent;
   * {@code ahead} the count of participant keys named before the asked lease's, or -1 when
   * not asked.
   */
  record ConfirmRead(long op, KeyRecord key, long revision, long raftTerm, long ahead)
      implements EtcdInput {
    /**
     * ConfirmRead of the key alone.
     *
     * @param op the operation id of the {@link EtcdCommand.ConfirmRead} this answers
     * @param key the key, or null when it is absent
     * @param revision the store's revision at the read
     * @param raftTerm etcd's raft term at the read, from the response header
     */
    public ConfirmRead(long op, KeyRecord key, long revision, long raftTerm) {
      this(op, key, revision, raftTerm, -1);
    }
  }

  /** ConfirmFailed is a confirming read that failed or timed out. */
  record ConfirmFailed(long op, String reason) implements EtcdInput, Input.Failed {}

  /** LeaseProbed tells whether the lease still exists; {@code known} false when the probe failed. */
  record LeaseProbed(long op, boolean known, boolean alive) implements EtcdInput {}

  /** WatchPut is a put of the key seen by watch {@code watchId} at {@code revision}. */
  record WatchPut(long watchId, KeyRecord key, long revision) implements EtcdInput {}

  /** WatchDelete is a deletion of the key seen by watch {@code watchId} at {@code revision}. */
  record WatchDelete(long watchId, long revision) implements EtcdInput {}

  /**
   * TransferRequested is a put of the election's transfer request key, naming {@code
   * candidateId}, seen by watch {@code watchId} at {@code revision} (PROTOCOL.md §4.5).
   */
  record TransferRequested(long watchId, String candidateId, long revision) implements EtcdInput {}

  /** WatchEnlisted is a put of a participant key seen by watch {@code watchId}. */
  record WatchEnlisted(long watchId, Participant participant, long revision) implements EtcdInput {}

  /** WatchWithdrawn is a deletion of the participant key of {@code leaseId} seen by watch {@code watchId}. */
  record WatchWithdrawn(long watchId, long leaseId, long revision) implements EtcdInput {}

  /** WatchFailed is a watch that ended; {@code compacted} when its start revision was compacted. */
  record WatchFailed(long watchId, boolean compacted, String reason)
      implements EtcdInput, Input.Failed {}
}
