package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
import dev.leasehold.runtime.Reachability;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * SessionLease is a session's one lease as a pure state machine (PROTOCOL.md §11): the
 * single election's {@link Lease} (grant, keep-alive, confirming read, deadline, hedged by the
 * store), renewed at the MASTER's cadence however many elections ride on it, and re-granted
 * when it ends. It elects nobody: its news goes to the elections as {@link
 * SessionCommand.Renewed} and {@link SessionCommand.Ended}, and store trouble as {@link
 * SessionCommand.Unavailable} (once it lasts, as a single election reports it) and {@link
 * SessionCommand.Recovered} (at the next grant or confirmed renewal).
 *
 * <p>Its role, for the runtime's health: CANDIDATE while no lease is held, MASTER while one is,
 * STOPPED once closed. It publishes no event (it has no listeners of its own), so it keeps no
 * {@code Roles}: its role is read off the lease. Its outages are counted by the same {@link
 * Reachability} as an election's.
 *
 * <p>Not thread-safe: the session's event loop owns an instance.
 */
public final class SessionLease implements Machine {
  private final Effects fx;
  private final Lease lease;
  private final Holder holder = new Holder();
  private final Reachability reach = new Reachability(Reachability.LASTING);
  private boolean closed;
  private long grantFailures;

  /**
   * SessionLease renews with the session's protocol settings; {@code random} jitters retries.
   *
   * @param config the session's protocol settings
   * @param random the source of retry jitter; a seeded one makes a simulation repeatable
   */
  public SessionLease(ProtocolConfig config, RandomGenerator random) {
    this.fx = new Effects(config, random);
    this.lease = new Lease(config, fx);
  }

  @Override
  public List<Command> step(Input in, long now) {
    fx.begin();
    reach.begin(in);
    if (closed) {
      if (in instanceof EtcdInput.LeaseGranted g) {
        fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
      }
      return fx.commands();
    }
    if (in instanceof Input.Start) {
      lease.grantForCampaign(now);
    } else if (in instanceof Input.Close) {
      closed = true;
      if (lease.isHeld()) {
        fx.add(new SessionCommand.Ended(lease.id(), Cause.CLOSED));
        lease.release();
      }
      fx.cancelAllTimers();
    } else if (in instanceof EtcdInput.LeaseGranted g) {
      if (!lease.awaitsGrant(g.op(), true)) {
        fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
      } else {
        lease.hold(g, now);
        lease.lead(now);
        grantFailures = 0;
        fx.add(new SessionCommand.Renewed(lease.id(), lease.deadline(), lease.renewalSentAt(), 0));
        progressed();
      }
    } else if (in instanceof EtcdInput.GrantFailed f) {
      if (lease.awaitsGrant(f.op(), true)) {
        lease.campaignGrantFailed();
        grantFailures++;
        failed();
        fx.setTimer(TimerKind.CAMPAIGN, now + fx.backoff(grantFailures));
      }
    } else if (in instanceof Input.TimerFired t) {
      TimerKind kind = fx.fired(t);
      if (kind == TimerKind.RENEW) {
        lease.renew(now);
      } else if (kind == TimerKind.DEADLINE) {
        lease.onDeadline(now, holder);
      } else if (kind == TimerKind.CAMPAIGN) {
        lease.grantForCampaign(now);
      }
    } else {
      lease.on(in, now, holder);
    }
    return fx.commands();
  }

  /** failed counts a failed call, and tells the elections once the outage is due for a report. */
  private void failed() {
    if (reach.failed()) {
      reach.told(Cause.STORE_UNAVAILABLE);
      fx.add(new SessionCommand.Unavailable(reach.reason() == null ? "unknown" : reach.reason()));
    }
  }

  /** progressed ends a reported outage: the store granted a lease or confirmed a renewal. */
  private void progressed() {
    if (reach.progressed()) {
      reach.told(Cause.STORE_RECOVERED);
      fx.add(new SessionCommand.Recovered());
    }
  }

  /** end tells the elections the lease ended, revokes it if etcd may still hold it, and grants anew. */
  private void end(Cause cause, boolean revoke, long now) {
    fx.add(new SessionCommand.Ended(lease.id(), cause));
    if (revoke) {
      lease.release();
    } else {
      lease.forget();
    }
    lease.grantForCampaign(now);
  }

  private final class Holder implements Lease.Holder {
    @Override
    public void answered(long now) {}

    @Override
    public void failed(long now) {
      SessionLease.this.failed();
    }

    @Override
    public void gone(long now) {
      end(Cause.LEASE_REVOKED, false, now);
    }

    @Override
    public boolean keyRead(KeyRecord key, long revision, long now) {
      return true;
    }

    @Override
    public void renewed(KeyRecord key, long revision, long now) {
      fx.add(new SessionCommand.Renewed(lease.id(), lease.deadline(), lease.renewalSentAt(), revision));
      progressed();
    }

    @Override
    public void expired(long now) {
      end(Cause.LEASE_EXPIRED_LOCALLY, true, now);
    }
  }

  // ---- Machine ----

  @Override
  public ElectorState role() {
    return closed ? ElectorState.STOPPED : lease.isHeld() ? ElectorState.MASTER : ElectorState.CANDIDATE;
  }

  @Override
  public LeaderInfo leader() {
    return null;
  }

  @Override
  public long deadline() {
    return lease.deadline();
  }

  @Override
  public long renewalSentAt() {
    return lease.renewalSentAt();
  }
}
