package dev.leasehold.protocol;

import dev.leasehold.runtime.Input;

/**
 * Role is the handler of one role's inputs ({@link Follower}, {@link Candidate},
 * {@link Master}, and {@link Probing} for a MASTER's step-down); {@link ElectionMachine#step}
 * picks the current one. A role is also the {@link Lease.Holder} of the lease while it plays:
 * what the lease's news means depends on the role.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
abstract class Role implements Lease.Holder {
  final ElectionMachine m;

  Role(ElectionMachine m) {
    this.m = m;
  }

  /** on handles an input; step handles Close, WatchFailed and the timer table itself. */
  abstract void on(Input in, long now);

  /** onTimer handles a timer that went off for its latest arming. */
  abstract void onTimer(TimerKind kind, long now);

  @Override
  public void answered(long now) {
    // An ack or a read alone is not progress; a confirmed renewal is (Master, Follower).
  }

  @Override
  public void failed(long now) {
    m.failed(now);
  }

  @Override
  public boolean keyRead(KeyRecord key, long revision, long now) {
    return true;
  }

  @Override
  public void renewed(KeyRecord key, long revision, long now) {}
}
