package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Reachability;
import dev.leasehold.runtime.Roles;

/**
 * Role is the handler of one role's inputs ({@link Follower}, {@link Candidate},
 * {@link Master}, and {@link Probing} for a MASTER's step-down); {@link ElectionMachine#apply}
 * picks the current one. A role is also the {@link Lease.Holder} of the lease while it plays:
 * what the lease's news means depends on the role.
 *
 * <p>A role acts with the machine's shared parts (the lease, the view of the key, the watch,
 * the choke point, the step's effects), and reaches another role only through the machine's methods.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
abstract class Role implements Lease.Holder {
  final ElectionMachine m;
  final ProtocolConfig config;
  final Effects fx;
  final Lease lease;
  final KeyView key;
  final KeyWatch watch;
  final Roles roles;
  final Reachability reach;

  Role(ElectionMachine m) {
    this.m = m;
    this.config = m.config;
    this.fx = m.fx;
    this.lease = m.lease;
    this.key = m.key;
    this.watch = m.watch;
    this.roles = m.roles;
    this.reach = m.reach;
  }

  /** on handles an input; step handles Close, WatchFailed and the timer table itself. */
  abstract void on(Input in, long now);

  /**
   * onTimer handles a timer that went off for its latest arming: a lease's timers go to the
   * lease, a watch's re-creation to the watch; the follower has more.
   */
  void onTimer(TimerKind kind, long now) {
    switch (kind) {
      case RENEW -> lease.renew(now);
      case DEADLINE -> lease.onDeadline(now, this);
      case REWATCH -> watch.ensure();
      case POLL, PROBE, CAMPAIGN, PREEMPT -> {}
    }
  }

  @Override
  public void answered(long now) {
    // An ack or a read alone is not progress; a confirmed renewal is (Master, Follower).
  }

  @Override
  public void failed(long now) {
    roles.failed(now);
  }

  @Override
  public boolean keyRead(KeyRecord key, long revision, long now) {
    return true;
  }

  @Override
  public void renewed(KeyRecord key, long revision, long now) {}
}
