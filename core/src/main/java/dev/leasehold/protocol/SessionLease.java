package dev.leasehold.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.ConfigurationErrors;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
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
 * <p>Its role, for the runtime's health: CANDIDATE while no lease is live, MASTER while one is,
 * STOPPED once closed.
 *
 * <p>Not thread-safe: the session's event loop owns an instance.
 */
public final class SessionLease implements Machine {
  private final Effects fx;
  private final Lease lease;
  private final Holder holder = new Holder();
  private ElectorState role = ElectorState.CANDIDATE;
  private long grantFailures;
  // Failed calls since the last progress, the last one's reason, and whether it was reported.
  private long failures;
  private String failure;
  private boolean unavailable;

  /** SessionLease renews with the session's protocol settings; {@code random} jitters retries. */
  public SessionLease(ProtocolConfig config, RandomGenerator random) {
    this.fx = new Effects(config, random);
    this.lease = new Lease(config, fx);
  }

  @Override
  public List<Command> step(Input in, long now) {
    fx.begin();
    if (in instanceof Input.Failed f) {
      failure = f.reason();
    }
    if (role == ElectorState.STOPPED) {
      if (in instanceof EtcdInput.LeaseGranted g) {
        fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
      }
      return fx.commands();
    }
    if (in instanceof Input.Start) {
      lease.grantForCampaign(now);
    } else if (in instanceof Input.Close) {
      role = ElectorState.STOPPED;
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
        role = ElectorState.MASTER;
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

  /**
   * failed counts a failed call; an outage is reported once it lasts ({@link
   * ElectionMachine#LASTING} failures without progress), or at once for a configuration error.
   */
  private void failed() {
    failures++;
    if (!unavailable && (failures >= ElectionMachine.LASTING || ConfigurationErrors.is(failure))) {
      unavailable = true;
      fx.add(new SessionCommand.Unavailable(failure == null ? "unknown" : failure));
    }
  }

  /** progressed ends a reported outage: the store granted a lease or confirmed a renewal. */
  private void progressed() {
    failures = 0;
    if (unavailable) {
      unavailable = false;
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
    role = ElectorState.CANDIDATE;
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
    return role;
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
  public long fencingToken() {
    return 0;
  }

  @Override
  public long leaseId() {
    return lease.id();
  }

  @Override
  public long renewalSentAt() {
    return lease.renewalSentAt();
  }
}
