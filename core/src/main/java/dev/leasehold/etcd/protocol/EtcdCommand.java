package dev.leasehold.etcd.protocol;

import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;

/**
 * EtcdCommand is what the machine asks of etcd; the adapter reports each outcome back as an
 * {@link EtcdInput} carrying the same operation id. The calls are {@link StoreCall}s: one
 * request, one reply, bounded by the runtime's RPC timeout. Timers, events and lease releases
 * are the runtime's {@link Command}s.
 *
 * <p>All commands are immutable records, safe to pass between threads.
 */
public sealed interface EtcdCommand extends Command {
  /**
   * Poll reads the key linearizably (follower); with {@code participants}, the queue's keys
   * too, in the same read ({@link Participant}).
   */
  record Poll(long op, boolean participants) implements EtcdCommand, StoreCall {
    /**
     * Poll reads the key alone.
     *
     * @param op the operation id the result carries back
     */
    public Poll(long op) {
      this(op, false);
    }

    @Override
    public Input failed(String reason) {
      return new EtcdInput.PollFailed(op, reason);
    }
  }

  /**
   * GrantLease grants a lease of the given TTL. A grant for a cold campaign (PROTOCOL.md §4.5)
   * waits {@code waitNanos} for its answer, where that is longer than the RPC timeout: in a
   * cold start's herd a grant answered late still serves, and one given up is granted again.
   */
  record GrantLease(long op, long ttlSeconds, long waitNanos) implements EtcdCommand, StoreCall {
    /** GrantLease is a grant bounded by the RPC timeout. */
    public GrantLease(long op, long ttlSeconds) {
      this(op, ttlSeconds, 0);
    }

    @Override
    public long timeoutNanos(long rpcTimeoutNanos) {
      return Math.max(rpcTimeoutNanos, waitNanos);
    }

    @Override
    public Input failed(String reason) {
      return new EtcdInput.GrantFailed(op, reason);
    }
  }

  /**
   * Campaign commits {@code Txn(If CreateRevision(key) == 0, Then Put(key, candidateId,
   * lease), Else Get(key))}. With {@code enlist} (a candidate with no participant key on this
   * lease, standby leases on), the Else branch also puts the participant key on the lease, so a
   * lost campaign has queued the candidate (PROTOCOL.md
   * §4.5). A cold campaign waits {@code waitNanos} for its answer where that is longer than the
   * RPC timeout (its lease's deadline: a win answered later is too late anyway).
   */
  record Campaign(long op, long leaseId, boolean enlist, long waitNanos) implements EtcdCommand, StoreCall {
    /** Campaign is a campaign that does not enlist, bounded by the RPC timeout. */
    public Campaign(long op, long leaseId) {
      this(op, leaseId, false, 0);
    }

    @Override
    public long timeoutNanos(long rpcTimeoutNanos) {
      return Math.max(rpcTimeoutNanos, waitNanos);
    }

    @Override
    public Input failed(String reason) {
      return new EtcdInput.CampaignFailed(op, reason);
    }
  }

  /**
   * Enlist puts this candidate's participant key ({@link Participant#keyOf}, its id as the
   * value) on its standby lease {@code leaseId}, which joins it to the queue, or moves it to the
   * tail if it was there.
   */
  record Enlist(long op, long leaseId) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.EnlistFailed(op, reason);
    }
  }

  /**
   * Handover gives the key to the successor in one transaction: {@code Txn(If ModRevision(key)
   * == token, CreateRevision(successor's participant key) == successor.createRevision, Then
   * Put(key, successor.candidateId, successor.leaseId), Put(own participant key, candidateId,
   * leaseId), Else Get(key))}. The key's new mod revision is the successor's fencing token.
   */
  record Handover(long op, long token, long leaseId, Participant successor)
      implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.HandoverFailed(op, reason);
    }
  }

  /** KeepAlive sends one keep-alive for the lease; the machine recorded the send time. */
  record KeepAlive(long op, long leaseId) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.KeepAliveFailed(op, false, reason);
    }
  }

  /**
   * ConfirmRead reads the key linearizably to confirm the renewal just acknowledged; with a
   * {@code rankOf} lease (a queued follower's), the same read counts the participant keys named
   * before that lease's, as {@link Rank} does (PROTOCOL.md §4.5).
   */
  record ConfirmRead(long op, long rankOf) implements EtcdCommand, StoreCall {
    /**
     * ConfirmRead reads the key alone.
     *
     * @param op the operation id the result carries back
     */
    public ConfirmRead(long op) {
      this(op, 0);
    }

    @Override
    public Input failed(String reason) {
      return new EtcdInput.ConfirmFailed(op, reason);
    }
  }

  /** ProbeLease asks whether the lease still exists (its time-to-live). */
  record ProbeLease(long op, long leaseId) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.LeaseProbed(op, false, false);
    }
  }

  /**
   * Watch watches the key from {@code fromRevision} with requireLeader, and with {@code queue}
   * the participant keys under it too (the MASTER's watch: it picks the successor).
   */
  record Watch(long watchId, long fromRevision, boolean queue) implements EtcdCommand {
    /**
     * Watch watches the key alone.
     *
     * @param watchId the id the watch's notifications carry
     * @param fromRevision the first revision to report, usually the last read revision + 1
     */
    public Watch(long watchId, long fromRevision) {
      this(watchId, fromRevision, false);
    }
  }

  /**
   * Rank counts the participant keys named before the one of {@code leaseId} (all of them for
   * 0): how many candidates campaign before this one when the key goes (PROTOCOL.md §4.5). etcd
   * counts a key range from its index alone, without reading a key, so it is cheap however
   * long the queue.
   */
  record Rank(long op, long leaseId) implements EtcdCommand, StoreCall {

    @Override
    public Input failed(String reason) {
      return new EtcdInput.RankFailed(op, reason);
    }
  }

  /** CancelWatch ends the watch. */
  record CancelWatch(long watchId) implements EtcdCommand {}
}
