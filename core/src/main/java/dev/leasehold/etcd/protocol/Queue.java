package dev.leasehold.etcd.protocol;

import dev.leasehold.Participant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Queue is what a MASTER knows of the election's queue (PROTOCOL.md §4.5): the participants
 * by lease, as its read at the term's start and its watch showed them. It is a hint for
 * liveness, never for safety: a handover settles at etcd whatever the view says. It picks the
 * successor a resigning MASTER hands the key to, and tells a preempting MASTER whether a
 * candidate of a higher priority waits. Followers keep no view (each would receive
 * every change of the queue); they count the candidates ahead of them when the key goes.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Queue {
  private final Map<Long, Participant> byLease = new HashMap<>();
  // While a read of the queue is in flight (the term's first, or one a transfer asked for): the
  // deletions the watch showed, by lease, at their revision, so that a read served before one of
  // them does not bring the key back.
  private final Map<Long, Long> withdrawnAt = new HashMap<>();
  private boolean awaitingRead = true;
  private boolean rereading;

  /**
   * reset takes the view from a read of the queue served at {@code revision}, keeping what the
   * watch showed after it: the read's reply can arrive after watch events newer than the read.
   */
  void reset(List<Participant> participants, long revision) {
    Map<Long, Participant> read = new HashMap<>();
    for (Participant p : participants) {
      read.put(p.leaseId(), p);
    }
    for (Participant p : byLease.values()) {
      if (p.modRevision() > revision) {
        read.put(p.leaseId(), p);
      }
    }
    withdrawnAt.forEach((lease, at) -> {
      Participant p = read.get(lease);
      if (at > revision && p != null && p.modRevision() <= at) {
        read.remove(lease);
      }
    });
    withdrawnAt.clear();
    awaitingRead = false;
    rereading = false;
    byLease.clear();
    byLease.putAll(read);
  }

  /** clear forgets the view (the term ended); the next term's read is awaited again. */
  void clear() {
    byLease.clear();
    withdrawnAt.clear();
    awaitingRead = true;
    rereading = false;
  }

  /** rereading notes that a read of the queue was sent while the view stands: its reply goes to {@link #reset}. */
  void rereading() {
    rereading = true;
  }

  /** rereadFailed forgets what was kept for a read that failed: the view stands as the watch made it. */
  void rereadFailed() {
    rereading = false;
    if (!awaitingRead) {
      withdrawnAt.clear();
    }
  }

  /** enlisted records a participant key put (a join, or a move to the tail). */
  void enlisted(Participant p) {
    Participant known = byLease.get(p.leaseId());
    if (known == null || known.modRevision() <= p.modRevision()) {
      byLease.put(p.leaseId(), p);
    }
  }

  /** withdrawn records a participant key deleted (its lease ended). */
  void withdrawn(long leaseId, long revision) {
    if (awaitingRead || rereading) {
      withdrawnAt.merge(leaseId, revision, Math::max);
    }
    Participant known = byLease.get(leaseId);
    if (known != null && known.modRevision() <= revision) {
      byLease.remove(leaseId);
    }
  }

  /**
   * successor is the head of the queue leaving out {@code ownLease} (highest priority, then
   * longest queued: {@link Participant#ORDER}): the candidate a MASTER on that lease hands the
   * key to; null when there is none.
   */
  Participant successor(long ownLease) {
    Participant head = null;
    for (Participant p : byLease.values()) {
      if (p.leaseId() != ownLease && (head == null || Participant.ORDER.compare(p, head) < 0)) {
        head = p;
      }
    }
    return head;
  }

  /**
   * named is the participant of candidate {@code candidateId}, other than the one on {@code
   * ownLease}, first by {@link Participant#ORDER} if it is queued on more than one lease (a
   * restart whose old lease has not yet expired); null when the view shows none.
   */
  Participant named(String candidateId, long ownLease) {
    Participant found = null;
    for (Participant p : byLease.values()) {
      if (p.leaseId() != ownLease && p.candidateId().equals(candidateId)
          && (found == null || Participant.ORDER.compare(p, found) < 0)) {
        found = p;
      }
    }
    return found;
  }

  /** candidates lists the candidate ids the view shows, other than the one on {@code ownLease}, sorted. */
  SortedSet<String> candidates(long ownLease) {
    SortedSet<String> ids = new TreeSet<>();
    for (Participant p : byLease.values()) {
      if (p.leaseId() != ownLease) {
        ids.add(p.candidateId());
      }
    }
    return ids;
  }

  /** isRead is true once the term's read of the queue is in. */
  boolean isRead() {
    return !awaitingRead;
  }

  /**
   * outranks tells whether the queue shows a candidate, other than the one on {@code ownLease},
   * of a priority above {@code ownPriority}: one a preempting MASTER hands over to.
   */
  boolean outranks(long ownLease, int ownPriority) {
    Participant head = successor(ownLease);
    return head != null && head.priority() > ownPriority;
  }
}
