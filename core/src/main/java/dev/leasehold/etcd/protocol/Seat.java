package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Roles;

/**
 * Seat is this candidate's place in the election's queue (PROTOCOL.md §4.5): the participant
 * key it put on its standby lease, how many participant keys are named before it, as the
 * last standby renewal's read counted them (so that nothing needs to be asked when the key
 * goes), and, after resign(), the handover that gives the key to the queue's head.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}'s {@link Follower}.
 */
final class Seat {
  private final ElectionMachine m;
  private final Follower follower;
  private final Effects fx;
  private final Lease lease;
  private final KeyView key;
  private final Roles roles;
  private final boolean standbyLease;
  // The lease whose participant key was put (or is being put), and that put.
  private long enlistedLease;
  private long enlistOp;
  // The count of those ahead from the last standby renewal's read, or -1.
  private long knownAhead = -1;
  // The lease of the key's last holder seen: the count may include its participant key, which
  // went with its lease.
  private long holderLease;
  // The handover in flight after resign(), and the lease it keeps.
  private long handoverOp;
  private long handoverLease;
  // The transfer the handover carries out (0 for a resign or preemption), and its successor.
  private long transfer;
  private Participant transferTarget;

  Seat(ElectionMachine m, Follower follower) {
    this.m = m;
    this.follower = follower;
    this.fx = m.fx;
    this.lease = m.lease;
    this.key = m.key;
    this.roles = m.roles;
    this.standbyLease = m.config.standbyLease();
  }

  /**
   * maybeEnlist joins the queue with the held lease, once per lease: a follower with a
   * standby lease, not PROBING. The key lives as long as the lease.
   */
  void maybeEnlist() {
    if (!standbyLease || !lease.isHeld() || roles.role() != ElectorState.FOLLOWER
        || roles.owesLoss() || enlistedLease == lease.id() || enlistOp != 0) {
      return;
    }
    enlistedLease = lease.id();
    knownAhead = -1;
    enlistOp = fx.id();
    fx.add(new EtcdCommand.Enlist(enlistOp, enlistedLease));
  }

  /**
   * enlistedByCampaign takes the participant key a lost campaign's Else branch put on {@code
   * leaseId}, unless an Enlist of its own is in flight. No count comes with it: those ahead may
   * still change before the key goes (a higher priority enlists later), so, as after an Enlist,
   * the first standby renewal counts them, or the follower asks when the key goes.
   */
  void enlistedByCampaign(long leaseId) {
    if (enlistOp == 0) {
      enlistedLease = leaseId;
      knownAhead = -1;
    }
  }

  /** answered takes the reply to an Enlist, in any role. */
  void answered(Input in) {
    if (in instanceof EtcdInput.Enlisted e && e.op() == enlistOp) {
      enlistOp = 0;
    } else if (in instanceof EtcdInput.EnlistFailed f && f.op() == enlistOp) {
      // It may have been applied; either way the next standby renewal puts it again.
      enlistOp = 0;
      enlistedLease = 0;
    }
  }

  /** sawHolder notes the lease the key was last seen bound to. */
  void sawHolder(long lease) {
    holderLease = lease;
  }

  /** lease is the lease of this candidate's participant key, once put, or 0. */
  long lease() {
    return lease.isHeld() && enlistedLease == lease.id() && enlistOp == 0 ? enlistedLease : 0;
  }

  /** counted takes the count of those ahead from a standby renewal's read. */
  void counted(long ahead) {
    knownAhead = ahead;
  }

  /**
   * ahead is how many candidates come before this one now that the key went, from the last
   * count, leaving out the last holder's participant key if it was named before this one's;
   * -1 when no count is known (then the follower asks, {@link EtcdCommand.Rank}).
   */
  long ahead() {
    long own = lease();
    if (knownAhead < 0 || own == 0) {
      return -1;
    }
    boolean holderAhead = holderLease != 0 && Long.compareUnsigned(holderLease, own) < 0;
    return holderAhead ? Math.max(0, knownAhead - 1) : knownAhead;
  }

  /**
   * handOver sends the transaction that gives the key of the term {@code token} to {@code
   * next}; the MASTER already stepped down and kept its lease as a standby.
   */
  void handOver(long token, Participant next, long transfer) {
    handoverOp = fx.id();
    handoverLease = lease.id();
    this.transfer = transfer;
    this.transferTarget = next;
    fx.add(new EtcdCommand.Handover(handoverOp, token, handoverLease, next));
  }

  /**
   * forgetHandover drops the handover in flight: an answer after leaving FOLLOWER is ignored, and
   * a transfer it carried out is answered as of unknown outcome.
   */
  void forgetHandover() {
    if (handoverOp != 0) {
      transferEnded(null, "its outcome is unknown: this instance took part in the election again before etcd"
          + " answered; the term was given up");
    }
    handoverOp = 0;
  }

  private String targetName() {
    return transferTarget == null ? "the successor" : transferTarget.candidateId();
  }

  // Answers the transfer the handover carried out, if any.
  private void transferEnded(LeaderInfo target, String refusal) {
    if (transfer != 0) {
      fx.add(new Command.TransferOutcome(transfer, target, refusal));
      transfer = 0;
      transferTarget = null;
    }
  }

  /** handingOver is true while a handover of this candidate's waits for its answer. */
  boolean handingOver() {
    return handoverOp != 0;
  }

  /** handoverAnswered takes a FOLLOWER's answer to its handover. */
  void handoverAnswered(Input in, long now) {
    if (in instanceof EtcdInput.HandedOver h && h.op() == handoverOp) {
      handoverOp = 0;
      roles.progressed(now);
      if (transferTarget != null) {
        transferEnded(new LeaderInfo(transferTarget.candidateId(), h.revision(),
            transferTarget.leaseId()), null);
      }
      if (lease.id() == handoverLease && m.unhealthy()) {
        // It yielded because unhealthy: out of the queue now that the handover no longer needs the lease.
        m.abandonLease();
      } else if (lease.id() == handoverLease) {
        // The handover put this lease's participant key again, at the tail.
        enlistedLease = handoverLease;
      }
    } else if (in instanceof EtcdInput.HandoverRefused r && r.op() == handoverOp) {
      handoverOp = 0;
      roles.progressed(now);
      transferEnded(null, "etcd refused the handover to " + targetName() + ": its participant key"
          + " (its standby lease) or this term ended first; the term was given up and its lease released");
      handoverEnded(now);
      if (!follower.observe(r.key(), r.revision(), now) && key.absent()) {
        follower.poll();
      }
    } else if (in instanceof EtcdInput.HandoverFailed f && f.op() == handoverOp) {
      handoverOp = 0;
      roles.failed(now);
      transferEnded(null, "the handover to " + targetName() + " has an unknown outcome ("
          + f.reason() + "); the term was given up and its lease released");
      handoverEnded(now);
    }
  }

  // A handover refused or of unknown outcome: release the lease as a resign without successor
  // does; a key still bound to it goes with it, one handed over already is not on it.
  // The standby lease's renewals were this follower's reads (pollLater cancelled the poll): with
  // the lease gone it polls again, or a silent watch would leave it blind to the key's release.
  private void handoverEnded(long now) {
    if (lease.isHeld() && lease.id() == handoverLease) {
      m.abandonLease();
      follower.pollLater(now);
    }
  }
}
