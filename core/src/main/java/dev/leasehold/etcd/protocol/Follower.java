package dev.leasehold.etcd.protocol;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

/**
 * Follower handles the FOLLOWER's inputs: it reads the key linearizably (at start, unless it
 * makes the cold campaign instead; every poll interval; and after errors with backoff), follows the watch, reports each new leader, keeps
 * a standby lease if configured (and joins the queue with it), and becomes CANDIDATE when the
 * key is absent and no resign hold-off applies: at once at the head of the queue, after its
 * rank's stagger otherwise. It adopts a key handed to its standby lease, and carries out a
 * resigned MASTER's handover (PROTOCOL.md §4.5). While PROBING the role is FOLLOWER too: {@link Probing} hands it every
 * input but the probe's, and it then neither campaigns nor takes a standby lease.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Follower extends Role {
  private boolean started;
  private long pollOp;
  // A failed count waits as this rank; no rank waits longer than MAX_RANK staggers.
  static final long FAILED_RANK = 8;
  static final long MAX_RANK = 32;

  private long holdoffUntil = Long.MIN_VALUE;
  // This candidate's place in the queue.
  private final Seat seat;
  // The count of the candidates ahead, in flight since the key was seen absent at rankFrom.
  private long rankOp;
  private long rankFrom;
  // The rank's stagger ran out: the next read that finds the key absent campaigns.
  private boolean turn;

  Follower(ElectionMachine m) {
    super(m);
    this.seat = new Seat(m, this);
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof Input.Start) {
      if (!started) {
        started = true;
        if (config.coldCampaign() && !m.unhealthy()) {
          // Nothing to read yet that a campaign's answer does not tell: whoever holds the key,
          // or that it was free and is now ours (PROTOCOL.md §4.5, the cold campaign).
          m.coldCampaign(now);
        } else {
          poll();
        }
      }
    } else if (in instanceof EtcdInput.PollResult r) {
      polled(r, now);
    } else if (in instanceof EtcdInput.PollFailed f) {
      if (f.op() != pollOp) {
        return;
      }
      pollOp = 0;
      roles.failed(now);
      retry(now);
    } else if (in instanceof EtcdInput.LeaseGranted g) {
      if (lease.awaitsGrant(g.op(), false) && !lease.isHeld()) {
        lease.hold(g, now);
        seat.maybeEnlist();
      } else {
        fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
      }
    } else if (in instanceof EtcdInput.GrantFailed f) {
      if (lease.awaitsGrant(f.op(), false)) {
        roles.failed(now);
        lease.standbyGrantFailed(now + fx.backoff(reach.failures()));
      }
    } else if (in instanceof EtcdInput.WatchPut p) {
      if (watch.from(p.watchId()) && !observe(p.key(), p.revision(), now)) {
        maybeAcquireStandby(now);
      }
    } else if (in instanceof EtcdInput.WatchDelete d) {
      if (watch.from(d.watchId())) {
        deleted(d.revision(), now);
      }
    } else if (in instanceof EtcdInput.HandedOver || in instanceof EtcdInput.HandoverRefused
        || in instanceof EtcdInput.HandoverFailed) {
      seat.handoverAnswered(in, now);
    } else if (in instanceof EtcdInput.Ranked r) {
      if (r.op() == rankOp) {
        // An answer, not progress: a read-only user's counts succeed while its campaigns are
        // refused (PROTOCOL.md §9).
        rankOp = 0;
        staggered(r.ahead(), now);
      }
    } else if (in instanceof EtcdInput.RankFailed f) {
      if (f.op() == rankOp) {
        // Not knowing its place, it waits as a candidate far down the queue would: a count
        // that fails under load must not turn the queue into a herd.
        rankOp = 0;
        roles.failed(now);
        staggered(FAILED_RANK, now);
      }
    } else {
      lease.on(in, now, this);
    }
  }

  /** needsEnlisting tells whether a campaign should put the participant key: standby leases on, none put on this lease. */
  boolean needsEnlisting() {
    return config.standbyLease() && seat.lease() == 0;
  }

  /** enlistedByCampaign notes the participant key a lost campaign put on {@code leaseId}. */
  void enlistedByCampaign(long leaseId) {
    seat.enlistedByCampaign(leaseId);
  }

  /** handOver sends the transaction that gives the key of the term {@code token} to {@code next}. */
  void handOver(long token, Participant next, long transfer) {
    seat.handOver(token, next, transfer);
  }

  /**
   * leaveQueue takes the candidate out of the election while the user's health check holds it
   * unhealthy: no campaign, and its standby lease released (its participant key goes with it),
   * unless a handover of its is in flight, which needs that lease: the answer releases it then.
   */
  void leaveQueue(long now) {
    fx.cancelTimer(TimerKind.CAMPAIGN);
    turn = false;
    if (lease.isHeld() && !seat.handingOver()) {
      m.abandonLease();
      pollLater(now);
    }
  }

  /** enlistAnswered takes the reply to a participant key's put, in any role. */
  void enlistAnswered(Input in) {
    seat.answered(in);
  }

  @Override
  void onTimer(TimerKind kind, long now) {
    switch (kind) {
      case POLL -> {
        if (!m.probing()) {
          poll();
        }
      }
      case RENEW -> lease.renew(now);
      case DEADLINE -> lease.onDeadline(now, this);
      // The watch may have missed changes, and its start revision may have been compacted:
      // re-read first, and the read re-opens the watch.
      case REWATCH -> poll();
      case CAMPAIGN -> {
        if (!m.probing() && key.absent() && now >= holdoffUntil) {
          // A linearizable read first: the campaign of those ahead may have taken the key while
          // its watch event is still on the way, and a read costs etcd no raft proposal, where a
          // campaign that loses still does.
          turn = true;
          pollOp = 0;
          poll();
        } else if (!m.probing()) {
          resumeFollowing(now);
        }
      }
      case PROBE, PREEMPT -> {}
    }
  }

  /** poll reads the key, unless a read is already in flight. */
  void poll() {
    if (pollOp == 0) {
      pollOp = fx.id();
      fx.add(new EtcdCommand.Poll(pollOp));
    }
  }

  /**
   * forgetPoll drops the read, the count and the handover in flight, whose replies are then
   * ignored (see ElectionMachine's hook for a role left): a handover's answer that finds this
   * instance campaigning, leading or adopting on that lease again must not release it (the TLA+
   * model's finding 8).
   */
  void forgetPoll() {
    pollOp = 0;
    rankOp = 0;
    seat.forgetHandover();
    turn = false;
  }

  /**
   * pollLater arms the routine read a poll interval from now, unless a standby lease is held:
   * the confirming read of each of its renewals reads the key, so it is the poll then
   * (PROTOCOL.md §4.4), and a follower costs etcd one keep-alive and one read per renewal.
   */
  void pollLater(long now) {
    if (config.standbyLease() && lease.isHeld() && !m.probing()) {
      fx.cancelTimer(TimerKind.POLL);
      return;
    }
    pollAt(now + config.pollIntervalNanos());
  }

  /** pollAt arms the next read. */
  void pollAt(long at) {
    fx.setTimer(TimerKind.POLL, at);
  }

  /** retry arms the next read after the backoff of the failures since the last progress. */
  void retry(long now) {
    pollAt(now + fx.backoff(reach.failures()));
  }

  /** holdOff keeps this instance out of the election until {@code until}, or until another leader is seen. */
  void holdOff(long until) {
    holdoffUntil = until;
  }

  /**
   * followHolder follows the holder a lost campaign's Else branch showed (null: the key was
   * gone by then), watches the key (a cold campaign lost before any read opened the watch),
   * rejoins the queue, and reads the key again: at once if it was gone.
   */
  void followHolder(KeyRecord holder, long revision, long now) {
    observe(holder, revision, now);
    watch.ensure();
    seat.maybeEnlist();
    if (key.absent()) {
      poll();
    } else {
      pollLater(now);
    }
  }

  private void polled(EtcdInput.PollResult r, long now) {
    if (r.op() != pollOp) {
      return;
    }
    pollOp = 0;
    if (r.key() != null) {
      // The key is held: a follower needs nothing more. Absent, it still needs its campaign.
      roles.progressed(now);
    }
    if (observe(r.key(), r.revision(), now)) {
      return;
    }
    watch.ensure();
    if (!m.probing()) {
      if (key.absent() && turn && !m.unhealthy()) {
        turn = false;
        m.campaign(now);
      } else if (key.absent()) {
        campaignOrWait(now);
      } else {
        pollLater(now);
        maybeAcquireStandby(now);
      }
    }
  }

  private void deleted(long revision, long now) {
    boolean fresh = !key.isBefore(revision);
    observe(null, revision, now);
    if (fresh && !m.probing() && key.absent()) {
      fx.cancelTimer(TimerKind.POLL);
      // Campaign on the watch at once rather than after a read still in flight: whatever that
      // read shows, the CAS settles it (it loses if K is taken again). Its reply is dropped (a
      // reply to a forgotten op is ignored), so it cannot start a second campaign.
      pollOp = 0;
      campaignOrWait(now);
    }
  }

  /**
   * observe records what a read or watch saw of the key, ignoring anything older than what
   * is already known, and reports a new leader. A key bound to this instance's own standby
   * lease, after any term it gave up, is its own (a handover to it, or a campaign of its that
   * was applied after all, PROTOCOL.md §4.5): it adopts it.
   *
   * @return whether it adopted the key (the role is then MASTER)
   */
  boolean observe(KeyRecord k, long revision, long now) {
    if (!key.saw(k, revision)) {
      return false;
    }
    if (k != null) {
      turn = false;
      seat.sawHolder(k.leaseId());
    }
    if (key.handedTo(k, lease.id()) && !m.probing() && adopt(k, now)) {
      return true;
    }
    LeaderInfo seen = key.holder(k, lease.id());
    if (seen != null) {
      // Someone else took over: the hold-off after resign() has done its job.
      holdoffUntil = Long.MIN_VALUE;
    }
    roles.see(seen, now);
    return false;
  }

  /**
   * adopt leads with a key handed to the standby lease if that lease has a renewal interval of
   * its deadline left, like a campaign on a standby lease; otherwise it renews first, and the
   * confirming read, which shows the key, adopts it (its deadline passing releases the lease,
   * and the key with it).
   */
  private boolean adopt(KeyRecord k, long now) {
    if (lease.hasRenewalLeft(now)) {
      m.adopt(k.token(), now);
      return true;
    }
    lease.renew(now);
    return false;
  }

  /**
   * maybeAcquireStandby grants a lease a follower keeps alive while someone else leads, so
   * that taking over costs one transaction instead of a grant and a transaction.
   */
  private void maybeAcquireStandby(long now) {
    if (!config.standbyLease() || m.probing() || m.unhealthy() || key.absent()
        || !lease.mayGrantStandby(now)
        // After resign(), a grant of ours would compete with the successor's transaction for
        // the same raft round trips; wait until the successor is seen (that ends the hold-off).
        || now < holdoffUntil) {
      return;
    }
    lease.grantStandby(now);
  }

  /**
   * campaignOrWait campaigns for the free key unless a resign hold-off applies; with a standby
   * lease, it first counts the candidates ahead of it (the participant keys named before its
   * own; all of them without one): only the first campaigns at once, the others after their
   * rank's stagger (PROTOCOL.md §4.5).
   */
  private void campaignOrWait(long now) {
    if (m.unhealthy()) {
      // Out of the election until healthy again, which reads the key.
      pollLater(now);
      return;
    }
    if (now < holdoffUntil) {
      pollAt(holdoffUntil);
      return;
    }
    if (!config.standbyLease()) {
      m.campaign(now);
      return;
    }
    // The last standby renewal's read counted those ahead, so a thousand followers do not
    // all ask at once.
    long ahead = seat.ahead();
    if (ahead >= 0) {
      rankFrom = now;
      staggered(ahead, now);
    } else if (rankOp == 0) {
      rankOp = fx.id();
      rankFrom = now;
      fx.add(new EtcdCommand.Rank(rankOp, seat.lease()));
    }
  }

  @Override
  public long rankOf() {
    return seat.lease();
  }

  @Override
  public void ranked(long ahead, long now) {
    seat.counted(ahead);
  }

  private void staggered(long ahead, long now) {
    if (m.probing()) {
      return;
    }
    if (m.unhealthy() || !key.absent() || now < holdoffUntil) {
      resumeFollowing(now);
      return;
    }
    if (ahead == 0) {
      m.campaign(now);
      return;
    }
    long stagger = Math.max(config.backoffInitialNanos(), 1_000_000L);
    // Counted from when the key was seen absent, so a slow count does not let those behind
    // overtake the head; bounded, so a long queue of hung candidates cannot stall for long.
    fx.setTimer(TimerKind.CAMPAIGN, rankFrom + Math.min(ahead, MAX_RANK) * stagger);
  }

  /**
   * resumeFollowing arms the routine read of a follower whose way to a campaign ended without one:
   * the key came back (a watch put after the delete that started the count or the stagger), or
   * it sits out. The delete cancelled the poll and dropped the read in flight, so without this a
   * follower with no standby lease would have no timer left, and a silent watch would hide the
   * key's next release for good.
   */
  private void resumeFollowing(long now) {
    if (key.absent() && now < holdoffUntil) {
      pollAt(holdoffUntil);
    } else {
      pollLater(now);
    }
  }

  // ---- the standby lease ----

  @Override
  public void gone(long now) {
    lease.forget();
    pollAt(now + config.pollIntervalNanos());
  }

  @Override
  public void renewed(KeyRecord k, long revision, long now) {
    if (!m.probing()) {
      // A standby renewal's read is as good as a poll.
      if (k != null) {
        roles.progressed(now);
      }
      if (observe(k, revision, now)) {
        return;
      }
      seat.maybeEnlist();
      if (key.absent() && pollOp == 0) {
        campaignOrWait(now);
      }
    }
  }

  @Override
  public void expired(long now) {
    if (lease.isHeld()) {
      // A standby lease we can no longer vouch for: let it go, take a fresh one later, and
      // poll again meanwhile.
      m.abandonLease();
      pollAt(now + config.pollIntervalNanos());
    }
  }
}
