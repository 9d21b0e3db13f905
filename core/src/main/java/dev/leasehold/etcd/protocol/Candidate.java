package dev.leasehold.etcd.protocol;

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
  // This campaign is the cold one: its grant and its transaction wait as long as the lease can serve.
  private boolean cold;

  Candidate(ElectionMachine m) {
    super(m);
  }

  /** begin moves a FOLLOWER that found the key absent to CANDIDATE and starts the campaign. */
  void begin(long now) {
    cold = false;
    roles.moveTo(ElectorState.CANDIDATE, null, null, now);
    if (lease.isHeld()) {
      // A standby lease with at least a renewal interval left goes straight to the CAS.
      if (lease.hasRenewalLeft(now)) {
        campaign(now);
        return;
      }
      m.abandonLease();
    }
    // A standby grant already on its way is adopted: the campaign starts when it arrives.
    lease.grantForCampaign(now);
  }

  /**
   * beginCold moves a FOLLOWER that has just started, and holds no lease, to CANDIDATE without
   * reading the key first (PROTOCOL.md §4.5): it grants a lease and campaigns with it; the
   * campaign's Else branch enlists it, so a loser is queued and knows the holder after two
   * calls. Both calls wait as long as the lease can serve, not the RPC timeout: in a cold
   * start's herd a call given up is a call made again, and a campaign given up is a lease revoked.
   */
  void beginCold(long now) {
    cold = true;
    roles.moveTo(ElectorState.CANDIDATE, null, null, now);
    lease.grantForCampaign(now, config.coldGrantWaitNanos());
  }

  /**
   * adopt makes the FOLLOWER that found the key handed to its standby lease MASTER with the
   * key's mod revision as token (PROTOCOL.md §4.5); the caller checked the lease's deadline.
   */
  void adopt(long token, long now) {
    roles.moveTo(ElectorState.CANDIDATE, null, null, now);
    m.lead(token, now);
  }

  private void campaign(long now) {
    campaignOp = fx.id();
    // A cold campaign waits until its lease's deadline: a win answered after it is too late anyway.
    long wait = cold ? Math.max(0, lease.deadline() - now) : 0;
    fx.add(new EtcdCommand.Campaign(campaignOp, lease.id(), m.needsEnlisting(), wait));
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof EtcdInput.LeaseGranted g) {
      if (!lease.awaitsGrant(g.op(), true)) {
        fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
        return;
      }
      lease.hold(g, now);
      campaign(now);
    } else if (in instanceof EtcdInput.GrantFailed f) {
      if (lease.awaitsGrant(f.op(), true)) {
        lease.campaignGrantFailed();
        roles.failed(now);
        roles.moveTo(ElectorState.FOLLOWER, null, null, now);
        m.retryRead(now);
      }
    } else if (in instanceof EtcdInput.CampaignWon w) {
      if (w.op() == campaignOp) {
        campaignOp = 0;
        roles.progressed(now);
        won(w.createRevision(), now);
      }
    } else if (in instanceof EtcdInput.CampaignLost l) {
      if (l.op() == campaignOp) {
        campaignOp = 0;
        roles.progressed(now);
        lost(l, now);
      }
    } else if (in instanceof EtcdInput.CampaignFailed f) {
      if (f.op() == campaignOp) {
        campaignOp = 0;
        roles.failed(now);
        // The transaction may have been applied; revoking the lease removes the key with it, so
        // no key is left bound to a lease nobody renews.
        m.abandonLease();
        roles.moveTo(ElectorState.FOLLOWER, null, null, now);
        m.retryRead(now);
      }
    } else if (in instanceof EtcdInput.WatchPut p) {
      if (watch.from(p.watchId())) {
        key.noteRevision(p.revision());
      }
    } else if (in instanceof EtcdInput.WatchDelete d) {
      if (watch.from(d.watchId())) {
        key.noteRevision(d.revision());
      }
    } else {
      lease.on(in, now, this);
    }
  }

  // A key the campaign created has its mod revision at its create revision: that is the token.
  private void won(long token, long now) {
    if (!lease.isHeld() || now >= lease.deadline()) {
      // Too slow to be useful (or the lease is gone): holding the key now would mean leading
      // past the deadline. Revoking removes the key.
      if (lease.isHeld()) {
        m.abandonLease();
      } else {
        lease.forget();
      }
      roles.moveTo(ElectorState.FOLLOWER, null, null, now);
      m.readKey();
      return;
    }
    m.lead(token, now);
  }

  private void lost(EtcdInput.CampaignLost l, long now) {
    KeyRecord holder = l.holder();
    if (holder != null && lease.isHeld() && holder.leaseId() == lease.id()) {
      // The key is bound to our own lease: an earlier attempt of this very transaction was
      // applied (a retried request). It is ours, created at that revision.
      won(holder.token(), now);
      return;
    }
    roles.moveTo(ElectorState.FOLLOWER, null, null, now);
    if (!config.standbyLease() || now >= lease.deadline()) {
      m.abandonLease();
    } else if (l.enlisted()) {
      m.enlistedByCampaign(lease.id());
    }
    m.followHolder(holder, l.revision(), now);
  }

  // ---- the lease the campaign rides on ----

  @Override
  public void gone(long now) {
    // The CAS in flight can no longer make us MASTER; its result finds no deadline left.
    lease.distrust();
  }

  @Override
  public void expired(long now) {
    // The transaction's result checks the deadline itself.
  }
}
