package dev.leasehold.etcd.protocol;

import dev.leasehold.LeaderInfo;
import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Term;
import java.time.Duration;
import java.util.List;

/**
 * Master handles the MASTER's inputs. Its lease renews (as late as leaves 2 s of its window) and earns the deadline
 * ({@link Lease}); the MASTER judges what reads and watch events show of its key, and steps
 * down at the deadline, when its key is taken (bound to another lease or mod revision),
 * when etcd reports its lease gone, or on resign() (RESIGNED, or WORK_STALLED from the
 * runtime's watchdog; with a successor in the queue it hands the key over and keeps its lease as
 * a standby, PROTOCOL.md §4.5). With {@code preemptAfter}, it hands over the same way
 * (PREEMPTED) once its queue has shown a candidate of a higher priority for that long without a
 * break. When its key is deleted it steps down at
 * once and asks whether its lease went too ({@link Probing}).
 *
 * <p>Every way out changes the role before the event goes out, so {@code isLeader()} is false
 * before any listener runs.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Master extends Role {
  private final Queue queue;
  private long token;
  // The read of the queue at the term's start.
  private long queueOp;
  // The queue has shown a candidate of a higher priority since the PREEMPT timer was armed.
  private boolean outranked;
  // The revision of the last transfer request carried out.
  private long lastRequest;
  // A transfer whose target the view did not show, and the read of the queue it waits for.
  private Input.Transfer lookingUp;
  private long lookupOp;

  Master(ElectionMachine m) {
    super(m);
    this.queue = m.queue;
  }

  /**
   * begin makes the CANDIDATE whose key became its at revision {@code token} (created by its
   * campaign, or handed to it) MASTER.
   */
  void begin(long token, long now) {
    key.noteRevision(token);
    this.token = token;
    this.outranked = false;
    roles.elect(new Term(token, lease.id(), lease.deadline(), null,
            lease.ttlSeconds() > 0 ? Duration.ofSeconds(lease.ttlSeconds()) : null),
        new LeaderInfo(config.candidateId(), token, lease.id()), now);
    lease.lead(now);
    // The MASTER keeps the queue's view, to pick its successor: a read now, then its watch.
    watch.rewatch();
    if (config.standbyLease()) {
      queueOp = fx.id();
      fx.add(new EtcdCommand.Poll(queueOp, true));
    }
  }

  @Override
  void on(Input in, long now) {
    if (in instanceof Input.Resign r) {
      m.holdOff(now + config.resignHoldoffNanos());
      Participant next = config.standbyLease() ? queue.successor(lease.id()) : null;
      if (next == null) {
        lose(r.cause(), null, now);
      } else {
        handOver(r.cause(), next, 0, now);
      }
    } else if (in instanceof Input.Transfer t) {
      transfer(t, now);
    } else if (in instanceof EtcdInput.LeaseGranted g) {
      fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
    } else if (in instanceof EtcdInput.PollResult r) {
      if (r.op() == queueOp && r.participants() != null) {
        queueOp = 0;
        queue.reset(r.participants(), r.revision());
        queueChanged(now);
      } else if (lookupOp != 0 && r.op() == lookupOp) {
        lookedUp(r.participants(), r.revision(), "", now);
      }
    } else if (in instanceof EtcdInput.PollFailed f) {
      if (f.op() == queueOp) {
        // Without the view a resign revokes, as without a queue; the watch still fills it.
        queueOp = 0;
      } else if (lookupOp != 0 && f.op() == lookupOp) {
        lookedUp(null, 0, " (reading the queue again failed: " + f.reason() + ")", now);
      }
    } else if (in instanceof EtcdInput.WatchPut p) {
      if (watch.from(p.watchId())) {
        key.noteRevision(p.revision());
        // Our own put (at the token's revision) and anything older say nothing new.
        if (p.revision() > token && !ours(p.key())) {
          lose(Cause.KEY_TAKEN, ElectionMachine.info(p.key()), now);
        }
      }
    } else if (in instanceof EtcdInput.WatchDelete d) {
      if (watch.from(d.watchId())) {
        key.noteRevision(d.revision());
        if (d.revision() > token) {
          m.probe(now);
        }
      }
    } else {
      lease.on(in, now, this);
    }
  }

  @Override
  void onTimer(TimerKind kind, long now) {
    if (kind != TimerKind.PREEMPT) {
      super.onTimer(kind, now);
    } else if (outranked && queue.outranks(lease.id(), config.priority())) {
      m.holdOff(now + config.resignHoldoffNanos());
      handOver(Cause.PREEMPTED, queue.successor(lease.id()), 0, now);
    }
  }

  /**
   * queueChanged arms the preemption when the queue's view starts to show a candidate of a
   * higher priority, and disarms it when it no longer does: the delay counts an unbroken wait,
   * so a candidate that restarts during a rolling restart starts it again.
   */
  void queueChanged(long now) {
    if (roles.role() != ElectorState.MASTER) {
      return;
    }
    yieldIfUnhealthy(now);
    if (!config.preempts() || roles.role() != ElectorState.MASTER) {
      return;
    }
    boolean higher = queue.outranks(lease.id(), config.priority());
    if (higher && !outranked) {
      fx.setTimer(TimerKind.PREEMPT, now + config.preemptAfterNanos());
    } else if (!higher && outranked) {
      fx.cancelTimer(TimerKind.PREEMPT);
    }
    outranked = higher;
  }

  /**
   * yieldIfUnhealthy hands the term of a MASTER the user's health check holds unhealthy to the
   * queue's head (unhealthy candidates are not queued), as resign() would, with cause UNHEALTHY;
   * with nobody queued it keeps the term until the queue shows someone (PROTOCOL.md §4.5).
   */
  void yieldIfUnhealthy(long now) {
    if (!m.unhealthy() || roles.role() != ElectorState.MASTER || !config.standbyLease()) {
      return;
    }
    Participant next = queue.successor(lease.id());
    if (next != null) {
      m.holdOff(now + config.resignHoldoffNanos());
      handOver(Cause.UNHEALTHY, next, 0, now);
    }
  }

  /**
   * requested carries out an operator's transfer request (PROTOCOL.md §4.5) once per put of the
   * request key, as {@code transferTo} would, answered under the negated revision of that put
   * (the runtime logs it; nobody waits on it). A request naming this instance is the one that
   * made it leader: nothing to do.
   */
  void requested(EtcdInput.TransferRequested r, long now) {
    if (r.revision() <= Math.max(token, lastRequest) || r.candidateId().equals(config.candidateId())) {
      return;
    }
    lastRequest = r.revision();
    transfer(new Input.Transfer(-r.revision(), r.candidateId()), now);
  }

  /**
   * transfer hands the term to the candidate {@code t} names, if the queue's view shows it live,
   * as resign() hands it to the queue's head, and sits out the resign hold-off; otherwise it
   * keeps the term and answers why (PROTOCOL.md §4.5, "Transfer").
   */
  private void transfer(Input.Transfer t, long now) {
    if (lookingUp == null && config.standbyLease() && queue.isRead()
        && queue.named(t.candidateId(), lease.id()) == null && !t.candidateId().equals(config.candidateId())) {
      // The view follows etcd through the watch, a step behind: a candidate that joined just now,
      // which participants() already lists, may not be in it yet. One linearizable read of the
      // queue settles it before the transfer is refused.
      lookingUp = t;
      lookupOp = fx.id();
      queue.rereading();
      fx.add(new EtcdCommand.Poll(lookupOp, true));
      return;
    }
    decide(t, "", now);
  }

  /**
   * lookedUp decides the transfer that waited for a read of the queue, on the view that read
   * renewed ({@code read} null: the read failed or could not list the queue, and {@code note} says
   * so in a refusal).
   */
  private void lookedUp(List<Participant> read, long revision, String note, long now) {
    Input.Transfer t = lookingUp;
    lookupOp = 0;
    lookingUp = null;
    if (read != null) {
      queue.reset(read, revision);
    } else {
      queue.rereadFailed();
    }
    if (queue.named(t.candidateId(), lease.id()) != null) {
      decide(t, "", now);
      return;
    }
    if (read != null) {
      queueChanged(now);
    }
    if (roles.role() != ElectorState.MASTER) {
      // Only an unhealthy MASTER leaves on a new view: it yielded to the queue's head.
      m.refuseTransfer(t, t.candidateId() + " is not a live participant of the queue, and this instance, held"
          + " unhealthy by its health check, handed its term to the queue's head (UNHEALTHY) instead");
      return;
    }
    decide(t, note, now);
  }

  /**
   * termLeft answers a transfer still waiting for its read of the queue when the term ends: nothing
   * was handed over.
   */
  void termLeft() {
    if (lookingUp != null) {
      m.refuseTransfer(lookingUp, "the term ended before the queue was read again; nothing was handed to "
          + lookingUp.candidateId());
      lookingUp = null;
      lookupOp = 0;
    }
  }

  /** decide hands the term to {@code t}'s candidate if the view shows it, else keeps the term and says why. */
  private void decide(Input.Transfer t, String readNote, long now) {
    String refusal = null;
    Participant target = null;
    if (!config.standbyLease()) {
      refusal = "standby leases are off (standbyLease(false)), so there is no queue of live candidates to hand the term to";
    } else if (!queue.isRead()) {
      refusal = "the term's read of the queue has not been answered yet; ask again";
    } else {
      target = queue.named(t.candidateId(), lease.id());
      if (target == null) {
        refusal = t.candidateId().equals(config.candidateId())
            ? t.candidateId() + " is this instance, the leader"
            : t.candidateId() + " is not a live participant of the queue (it shows " + queue.candidates(lease.id()) + ")"
                + readNote;
      }
    }
    if (refusal != null) {
      m.refuseTransfer(t, refusal + "; the term is kept");
      return;
    }
    m.holdOff(now + config.resignHoldoffNanos());
    handOver(Cause.TRANSFERRED, target, t.id(), now);
  }

  private boolean ours(KeyRecord k) {
    return k.leaseId() == lease.id() && k.token() == token;
  }

  /**
   * handOver ends the term by giving the key to the queue's head (PROTOCOL.md §4.5); the lease
   * stays, renewed as a standby lease. The role changes in this step, so isLeader() is false
   * before any command is carried out; the transaction is the first command, ahead of the
   * event and its log line, which do not hold the successor back.
   */
  private void handOver(Cause cause, Participant next, long transfer, long now) {
    m.handOver(token, next, transfer);
    key.termEnded(token);
    roles.moveTo(ElectorState.FOLLOWER, cause, null, now);
    lease.follow(now);
    m.readKeyLater(now);
  }

  /**
   * lose ends the term: renewal stops, the lease is revoked unless etcd said it is gone, the
   * listeners are told {@code cause}, and the follower reads the key again.
   */
  private void lose(Cause cause, LeaderInfo newLeader, long now) {
    lease.stopRenewing();
    key.termEnded(token);
    key.abandoned(lease.id());
    if (cause == Cause.LEASE_REVOKED) {
      lease.forget();
    } else {
      lease.release();
    }
    roles.moveTo(ElectorState.FOLLOWER, cause, newLeader, now);
    m.readKey();
  }

  // ---- the term's lease ----

  @Override
  public boolean keyRead(KeyRecord k, long revision, long now) {
    // A read served before our key was created (a standby renewal's read still in flight when
    // the CAS won) says nothing about that key; it still confirms the renewal.
    if (revision < token) {
      return true;
    }
    key.noteRevision(revision);
    if (k == null) {
      m.probe(now);
      return false;
    }
    if (!ours(k)) {
      lose(Cause.KEY_TAKEN, ElectionMachine.info(k), now);
      return false;
    }
    return true;
  }

  @Override
  public void renewed(KeyRecord k, long revision, long now) {
    roles.progressed(now);
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
