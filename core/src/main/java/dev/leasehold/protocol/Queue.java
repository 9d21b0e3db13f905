package dev.leasehold.protocol;

import dev.leasehold.Participant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Queue is what this instance knows of the election's queue (PROTOCOL.md §4.5): the
 * participants by lease, as its reads and its watch showed them. It is a hint for liveness,
 * never for safety: a campaign or a handover settles at etcd whatever the view says. It picks
 * the successor a resigning MASTER hands the key to, and the rank that sets how long a follower
 * waits before campaigning for a free key.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class Queue {
  private static final Comparator<Participant> ORDER =
      Comparator.comparingLong(Participant::modRevision).thenComparingLong(Participant::leaseId);

  private final Map<Long, Participant> byLease = new HashMap<>();
  // Whether the view may have missed changes (at start, after a failed watch): the next read
  // then takes the queue too.
  private boolean stale = true;

  /** stale tells whether the next read should take the queue as well as the key. */
  boolean stale() {
    return stale;
  }

  /** markStale asks for the queue with the next read (the watch may have missed changes). */
  void markStale() {
    stale = true;
  }

  /** reset replaces the view with a read's. */
  void reset(List<Participant> participants) {
    byLease.clear();
    for (Participant p : participants) {
      byLease.put(p.leaseId(), p);
    }
    stale = false;
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
    Participant known = byLease.get(leaseId);
    if (known != null && known.modRevision() <= revision) {
      byLease.remove(leaseId);
    }
  }

  /** contains tells whether the lease's participant key is in the view. */
  boolean contains(long leaseId) {
    return byLease.containsKey(leaseId);
  }

  /** size is the number of participants in the view. */
  int size() {
    return byLease.size();
  }

  /**
   * successor is the head of the queue leaving out {@code ownLease}: the candidate a MASTER on
   * that lease hands the key to; null when there is none.
   */
  Participant successor(long ownLease) {
    Participant head = null;
    for (Participant p : byLease.values()) {
      if (p.leaseId() != ownLease && (head == null || ORDER.compare(p, head) < 0)) {
        head = p;
      }
    }
    return head;
  }

  /**
   * rank is how many participants come before the one on {@code ownLease}, leaving out {@code
   * holderLease} (the key's last holder, whose participant key goes with its lease); a lease
   * not in the view ranks after all of them.
   */
  int rank(long ownLease, long holderLease) {
    Participant own = ownLease == 0 ? null : byLease.get(ownLease);
    int before = 0;
    for (Participant p : byLease.values()) {
      if (p.leaseId() != ownLease && p.leaseId() != holderLease
          && (own == null || ORDER.compare(p, own) < 0)) {
        before++;
      }
    }
    return before;
  }

  /** inOrder is the view in queue order, head first. */
  List<Participant> inOrder() {
    List<Participant> all = new ArrayList<>(byLease.values());
    all.sort(ORDER);
    return all;
  }
}
