package dev.leasehold.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

/**
 * Candidate handles the CANDIDATE's inputs: with a lease (a standby lease with a renewal
 * interval left, or one granted now) it commits {@code Txn(If CreateRevision(key) == 0, Then
 * Put(key, id, lease), Else Get(key))}. Won before the lease's deadline: MASTER. Lost: back to
 * FOLLOWER, knowing the holder, keeping the lease as a standby if configured and still valid.
 * Failed (outcome unknown) or too late: FOLLOWER, and the lease is revoked, which removes the
 * key if the transaction was applied after all.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Candidate extends Role {
  private long campaignOp;

  Candidate(ElectionMachine m) {
    super(m);
  }

  /** begin moves a FOLLOWER that found the key absent to CANDIDATE and starts the campaign. */
  void begin(long now) {
    m.moveTo(ElectorState.CANDIDATE, null, null, now);
    if (m.lease.isHeld()) {
      // A standby lease with at least a renewal interval left goes straight to the CAS.
      if (m.lease.hasRenewalLeft(now)) {
        campaign();
        return;
      }
      m.abandonLease();
    }
    // A standby grant already on its way is adopted: the campaign starts when it arrives.
    m.lease.grantForCampaign(now);
  }

  /**
   * adopt makes the FOLLOWER that found the key handed to its standby lease MASTER with the
   * key's mod revision as token (PROTOCOL.md §4.5); the caller checked the lease's deadline.
   */
  void adopt(long token, long now) {
    m.moveTo(ElectorState.CANDIDATE, null, null, now);
    m.master.begin(token, now);
  }

  private void campaign() {
    campaignOp = m.fx.id();
    m.fx.add(new EtcdCommand.Campaign(campaignOp, m.lease.id()));
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof EtcdInput.LeaseGranted g) {
      if (!m.lease.awaitsGrant(g.op(), true)) {
        m.fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
        return;
      }
      m.lease.hold(g, now);
      campaign();
    } else if (in instanceof EtcdInput.GrantFailed f) {
      if (m.lease.awaitsGrant(f.op(), true)) {
        m.lease.campaignGrantFailed();
        m.failed(now);
        m.moveTo(ElectorState.FOLLOWER, null, null, now);
        m.follower.pollAt(now + m.fx.backoff(m.failures));
      }
    } else if (in instanceof EtcdInput.CampaignWon w) {
      if (w.op() == campaignOp) {
        campaignOp = 0;
        m.progressed(now);
        won(w.createRevision(), now);
      }
    } else if (in instanceof EtcdInput.CampaignLost l) {
      if (l.op() == campaignOp) {
        campaignOp = 0;
        m.progressed(now);
        lost(l, now);
      }
    } else if (in instanceof EtcdInput.CampaignFailed f) {
      if (f.op() == campaignOp) {
        campaignOp = 0;
        m.failed(now);
        // The transaction may have been applied; revoking the lease removes the key with it, so
        // no key is left bound to a lease nobody renews.
        m.abandonLease();
        m.moveTo(ElectorState.FOLLOWER, null, null, now);
        m.follower.pollAt(now + m.fx.backoff(m.failures));
      }
    } else if (in instanceof EtcdInput.WatchPut p) {
      if (m.watch.from(p.watchId())) {
        m.noteRevision(p.revision());
      }
    } else if (in instanceof EtcdInput.WatchDelete d) {
      if (m.watch.from(d.watchId())) {
        m.noteRevision(d.revision());
      }
    } else {
      m.lease.on(in, now, this);
    }
  }

  @Override
  void onTimer(TimerKind kind, long now) {
    switch (kind) {
      case RENEW -> m.lease.renew(now);
      case DEADLINE -> m.lease.onDeadline(now, this);
      case REWATCH -> m.watch.ensure();
      case POLL, PROBE, CAMPAIGN -> {}
    }
  }

  // A key the campaign created has its mod revision at its create revision: that is the token.
  private void won(long token, long now) {
    if (!m.lease.isHeld() || now >= m.lease.deadline()) {
      // Too slow to be useful (or the lease is gone): holding the key now would mean leading
      // past the deadline. Revoking removes the key.
      if (m.lease.isHeld()) {
        m.abandonLease();
      } else {
        m.lease.forget();
      }
      m.moveTo(ElectorState.FOLLOWER, null, null, now);
      m.follower.poll();
      return;
    }
    m.master.begin(token, now);
  }

  private void lost(EtcdInput.CampaignLost l, long now) {
    KeyRecord holder = l.holder();
    if (holder != null && m.lease.isHeld() && holder.leaseId() == m.lease.id()) {
      // The key is bound to our own lease: an earlier attempt of this very transaction was
      // applied (a retried request). It is ours, created at that revision.
      won(holder.token(), now);
      return;
    }
    m.moveTo(ElectorState.FOLLOWER, null, null, now);
    if (!m.config.standbyLease() || now >= m.lease.deadline()) {
      m.abandonLease();
    }
    m.follower.observe(holder, l.revision(), now);
    m.follower.seat.maybeEnlist();
    if (m.keyAbsent) {
      m.follower.poll();
    } else {
      m.follower.pollLater(now);
    }
  }

  // ---- the lease the campaign rides on ----

  @Override
  public void gone(long now) {
    // The CAS in flight can no longer make us MASTER; its result finds no deadline left.
    m.lease.distrust();
  }

  @Override
  public void expired(long now) {
    // The transaction's result checks the deadline itself.
  }
}
