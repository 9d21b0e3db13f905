package dev.leasehold.protocol;

import dev.leasehold.Participant;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

/**
 * Master handles the MASTER's inputs. Its lease renews (as late as leaves 2 s of its window) and earns the deadline
 * ({@link Lease}); the MASTER judges what reads and watch events show of its key, and steps
 * down at the deadline, when its key is taken (bound to another lease or mod revision),
 * when etcd reports its lease gone, or on resign() (RESIGNED, or WORK_STALLED from the
 * runtime's watchdog; with a successor in the queue it hands the key over and keeps its lease as
 * a standby, PROTOCOL.md §4.5). When its key is deleted it steps down at
 * once and asks whether its lease went too ({@link Probing}).
 *
 * <p>Every way out changes the role before the event goes out, so {@code isLeader()} is false
 * before any listener runs.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Master extends Role {
  private long token;
  // The read of the queue at the term's start.
  private long queueOp;

  Master(ElectionMachine m) {
    super(m);
  }

  /** token is the fencing token of the current or last term: its key's mod revision at the term's start. */
  long token() {
    return token;
  }

  /**
   * begin makes the CANDIDATE whose key became its at revision {@code token} (created by its
   * campaign, or handed to it) MASTER.
   */
  void begin(long token, long now) {
    m.noteRevision(token);
    this.token = token;
    m.leader = new LeaderInfo(m.config.candidateId(), token, m.lease.id());
    m.moveTo(ElectorState.MASTER, Cause.ELECTED, m.leader, now);
    m.lease.lead(now);
    // The MASTER keeps the queue's view, to pick its successor: a read now, then its watch.
    m.watch.rewatch();
    if (m.config.standbyLease()) {
      queueOp = m.fx.id();
      m.fx.add(new EtcdCommand.Poll(queueOp, true));
    }
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof Input.Resign r) {
      m.follower.holdOff(now + m.config.resignHoldoffNanos());
      Participant next = m.config.standbyLease() ? m.queue.successor(m.lease.id()) : null;
      if (next == null) {
        lose(r.cause(), null, now);
      } else {
        handOver(r.cause(), next, now);
      }
    } else if (in instanceof EtcdInput.LeaseGranted g) {
      m.fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
    } else if (in instanceof EtcdInput.PollResult r) {
      if (r.op() == queueOp && r.participants() != null) {
        queueOp = 0;
        m.queue.reset(r.participants(), r.revision());
      }
    } else if (in instanceof EtcdInput.PollFailed f) {
      if (f.op() == queueOp) {
        // Without the view a resign revokes, as without a queue; the watch still fills it.
        queueOp = 0;
      }
    } else if (in instanceof EtcdInput.WatchPut p) {
      if (m.watch.from(p.watchId())) {
        m.noteRevision(p.revision());
        // Our own put (at the token's revision) and anything older say nothing new.
        if (p.revision() > token && !ours(p.key())) {
          lose(Cause.KEY_TAKEN, ElectionMachine.info(p.key()), now);
        }
      }
    } else if (in instanceof EtcdInput.WatchDelete d) {
      if (m.watch.from(d.watchId())) {
        m.noteRevision(d.revision());
        if (d.revision() > token) {
          m.probing.begin(now);
        }
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

  private boolean ours(KeyRecord key) {
    return key.leaseId() == m.lease.id() && key.token() == token;
  }

  /**
   * handOver ends the term by giving the key to the queue's head (PROTOCOL.md §4.5); the lease
   * stays, renewed as a standby lease. The role changes in this step, so isLeader() is false
   * before any command is carried out; the transaction is the first command, ahead of the
   * event and its log line, which do not hold the successor back.
   */
  private void handOver(Cause cause, Participant next, long now) {
    m.givenUpToken = token;
    m.follower.handOver(token, next);
    m.leader = null;
    m.keyAbsent = false;
    m.moveTo(ElectorState.FOLLOWER, cause, null, now);
    m.lease.follow(now);
    m.follower.pollLater(now);
  }

  /**
   * lose ends the term: renewal stops, the lease is revoked unless etcd said it is gone, the
   * listeners are told {@code cause}, and the follower reads the key again.
   */
  private void lose(Cause cause, LeaderInfo newLeader, long now) {
    m.givenUpToken = token;
    m.lease.stopRenewing();
    m.abandonedLeaseId = m.lease.id();
    if (cause == Cause.LEASE_REVOKED) {
      m.lease.forget();
    } else {
      m.lease.release();
    }
    m.leader = newLeader;
    m.keyAbsent = false;
    m.moveTo(ElectorState.FOLLOWER, cause, newLeader, now);
    m.follower.poll();
  }

  // ---- the term's lease ----

  @Override
  public boolean keyRead(KeyRecord key, long revision, long now) {
    // A read served before our key was created (a standby renewal's read still in flight when
    // the CAS won) says nothing about that key; it still confirms the renewal.
    if (revision < token) {
      return true;
    }
    m.noteRevision(revision);
    if (key == null) {
      m.probing.begin(now);
      return false;
    }
    if (!ours(key)) {
      lose(Cause.KEY_TAKEN, ElectionMachine.info(key), now);
      return false;
    }
    return true;
  }

  @Override
  public void renewed(KeyRecord key, long revision, long now) {
    m.progressed(now);
  }

  @Override
  public void gone(long now) {
    lose(Cause.LEASE_REVOKED, null, now);
  }

  @Override
  public void expired(long now) {
    lose(Cause.LEASE_EXPIRED_LOCALLY, null, now);
  }
}
