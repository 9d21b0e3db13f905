package dev.leasehold.protocol;

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
  /** Poll reads the key linearizably (follower). */
  record Poll(long op) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.PollFailed(op, reason);
    }
  }

  /** GrantLease grants a lease of the given TTL. */
  record GrantLease(long op, long ttlSeconds) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.GrantFailed(op, reason);
    }
  }

  /**
   * Campaign commits {@code Txn(If CreateRevision(key) == 0, Then Put(key, candidateId,
   * lease), Else Get(key))}.
   */
  record Campaign(long op, long leaseId) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.CampaignFailed(op, reason);
    }
  }

  /** KeepAlive sends one keep-alive for the lease; the machine recorded the send time. */
  record KeepAlive(long op, long leaseId) implements EtcdCommand, StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.KeepAliveFailed(op, false, reason);
    }
  }

  /** ConfirmRead reads the key linearizably to confirm the renewal just acknowledged. */
  record ConfirmRead(long op) implements EtcdCommand, StoreCall {
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

  /** Watch watches the key from {@code fromRevision} with requireLeader. */
  record Watch(long watchId, long fromRevision) implements EtcdCommand {}

  /** CancelWatch ends the watch. */
  record CancelWatch(long watchId) implements EtcdCommand {}
}
