package dev.leasehold.protocol;

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
 * from FOLLOWER may come before the loss. Every other input is the follower's, which neither
 * campaigns nor takes a standby lease meanwhile.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Probing extends Role {
  private long probeOp;
  private long leaseId;
  private long ttlSeconds;

  Probing(ElectionMachine m) {
    super(m);
  }

  /** begin steps the MASTER down and sends the probe; the loss is published when it ends. */
  void begin(long now) {
    m.phase = ElectionMachine.Phase.PROBING;
    m.moveTo(ElectorState.FOLLOWER, null, null, now);
    leaseId = m.lease.id();
    ttlSeconds = m.lease.ttlSeconds();
    m.abandonedLeaseId = leaseId;
    m.lease.forget();
    m.leader = null;
    m.keyAbsent = true;
    probeOp = m.fx.id();
    m.fx.add(new EtcdCommand.ProbeLease(probeOp, leaseId));
    m.fx.setTimer(TimerKind.PROBE, now + m.config.probeTimeoutNanos());
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof EtcdInput.LeaseProbed p) {
      if (p.op() == probeOp) {
        finish(p.known() && !p.alive() ? Cause.LEASE_REVOKED : Cause.KEY_DELETED, now);
      }
    } else {
      m.follower.on(in, now);
    }
  }

  @Override
  void onTimer(TimerKind kind, long now) {
    if (kind == TimerKind.PROBE) {
      finish(Cause.KEY_DELETED, now);
    } else {
      m.follower.onTimer(kind, now);
    }
  }

  private void finish(Cause cause, long now) {
    probeOp = 0;
    m.phase = ElectionMachine.Phase.NONE;
    m.fx.cancelTimer(TimerKind.PROBE);
    if (cause != Cause.LEASE_REVOKED) {
      m.fx.add(new Command.Release(leaseId, ttlSeconds));
    }
    leaseId = 0;
    m.moveTo(ElectorState.FOLLOWER, cause, m.leader, now);
    m.follower.poll();
  }

  /** releaseOnClose revokes a probed lease whose cause is still unknown. */
  void releaseOnClose() {
    if (leaseId != 0) {
      m.fx.add(new Command.Release(leaseId, ttlSeconds));
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
