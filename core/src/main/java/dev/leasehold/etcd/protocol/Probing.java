package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

/**
 * Probing is the PROBING phase of a MASTER's step-down. etcd deletes the key both when the key
 * alone is deleted and when the lease is revoked, so a MASTER that sees its key deleted steps
 * down at once (the role is FOLLOWER from then on, and {@code isLeader()} false) and then asks
 * for its lease's time-to-live, bounded by the probe timeout, only to name the cause:
 * LEASE_REVOKED if etcd says the lease is gone, KEY_DELETED otherwise (then the lease is
 * revoked). Until then the listeners are told nothing: they still see a MASTER, and no event
 * from FOLLOWER may come before the loss (the choke point owes them the loss). Every other
 * input is the follower's, which neither campaigns nor takes a standby lease meanwhile.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Probing extends Role {
  private final Follower follower;
  private long probeOp;
  private long leaseId;
  private long ttlSeconds;

  Probing(ElectionMachine m, Follower follower) {
    super(m);
    this.follower = follower;
  }

  /** begin steps the MASTER down and sends the probe; the loss is published when it ends. */
  void begin(long now) {
    roles.stepDownUntold();
    leaseId = lease.id();
    ttlSeconds = lease.ttlSeconds();
    key.abandoned(leaseId);
    lease.forget();
    key.deleted();
    probeOp = fx.id();
    fx.add(new EtcdCommand.ProbeLease(probeOp, leaseId));
    fx.setTimer(TimerKind.PROBE, now + config.probeTimeoutNanos());
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof EtcdInput.LeaseProbed p) {
      if (p.op() == probeOp) {
        finish(p.known() && !p.alive() ? Cause.LEASE_REVOKED : Cause.KEY_DELETED, now);
      }
    } else {
      follower.on(in, now);
    }
  }

  @Override
  void onTimer(TimerKind kind, long now) {
    if (kind == TimerKind.PROBE) {
      finish(Cause.KEY_DELETED, now);
    } else {
      follower.onTimer(kind, now);
    }
  }

  private void finish(Cause cause, long now) {
    probeOp = 0;
    fx.cancelTimer(TimerKind.PROBE);
    if (cause != Cause.LEASE_REVOKED) {
      fx.add(new Command.Release(leaseId, ttlSeconds));
    }
    leaseId = 0;
    // The loss owed since begin: from MASTER, with the leader seen meanwhile.
    roles.moveTo(ElectorState.FOLLOWER, cause, key.leader(), now);
    m.readKey();
  }

  /** releaseOnClose revokes a probed lease whose cause is still unknown. */
  void releaseOnClose() {
    if (leaseId != 0) {
      fx.add(new Command.Release(leaseId, ttlSeconds));
      leaseId = 0;
    }
  }

  @Override
  public void gone(long now) {
    // PROBING holds no lease: the MASTER's was handed to the probe.
  }

  @Override
  public void expired(long now) {}
}
