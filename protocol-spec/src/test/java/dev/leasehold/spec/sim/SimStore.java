package dev.leasehold.spec.sim;

import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SimStore is the simulated etcd: one linearizable store (the majority side of the cluster) with
 * a revision counter, the election key K, the election's queue of participant keys
 * {@code P(l)} (PROTOCOL.md §4.5, keyed here by their lease {@code l}), leases that expire on
 * the server clock and are swept every 500 ms (a lease's removal deletes K if bound to it and
 * its participant key, in one revision), a raft term, and the state an isolated old leader
 * keeps serving from.
 *
 * <p>Not thread-safe: one simulation owns it. Time is passed in (true time, nanoseconds).
 */
final class SimStore {
  /** Lease is a granted lease; {@code expiry} is on the server clock. */
  static final class Lease {
    final long id;
    final long ttlSeconds;
    final Object owner;
    long expiry;

    Lease(long id, long ttlSeconds, Object owner, long expiry) {
      this.id = id;
      this.ttlSeconds = ttlSeconds;
      this.owner = owner;
      this.expiry = expiry;
    }
  }

  /**
   * KeyEvent is a put or delete at a revision, as a watch reports it: of K ({@code lease} 0,
   * {@code record} the put's), or of the participant key of {@code lease} ({@code participant}
   * the put's). The events of one revision come in etcd's order: a transaction's in the order
   * of its puts, a lease's deletions in key order (K before {@code K/candidates/...}).
   */
  record KeyEvent(boolean put, long revision, KeyRecord record, long lease, Participant participant) {
    /** KeyEvent is a put or delete of K. */
    KeyEvent(boolean put, long revision, KeyRecord record) {
      this(put, revision, record, 0, null);
    }

    static KeyEvent enlisted(long revision, Participant p) {
      return new KeyEvent(true, revision, null, p.leaseId(), p);
    }

    static KeyEvent withdrawn(long revision, long lease) {
      return new KeyEvent(false, revision, null, lease, null);
    }

    boolean ofParticipant() {
      return lease != 0;
    }
  }

  /** Listener hears every change of K and of participant keys (to feed watches) and every lease removal. */
  interface Listener {
    void keyChanged(KeyEvent e);

    void leaseRemoved(Lease l, String why);
  }

  private final Listener listener;
  long revision;
  long compactRevision;
  KeyRecord key;
  /** queue holds the participant keys by lease; their mod revisions order the queue. */
  final TreeMap<Long, Participant> queue = new TreeMap<>();
  final TreeMap<Long, Lease> leases = new TreeMap<>();
  final List<KeyEvent> history = new ArrayList<>();
  long term = 2;
  /** hasLeader is false while the majority side has no leader (election in progress). */
  boolean hasLeader = true;
  private long nextLeaseId;

  // The isolated old leader's view, frozen when it was cut off.
  boolean isolated;
  long isoTerm;
  long isoRevision;
  KeyRecord isoKey;
  List<Participant> isoQueue = List.of();
  final Map<Long, Long> isoLeaseTtl = new HashMap<>();

  SimStore(Listener listener, long firstRevision, long firstLeaseId) {
    this.listener = listener;
    this.revision = firstRevision;
    this.nextLeaseId = firstLeaseId;
  }

  // ---- the majority side (requires hasLeader; callers check) ----

  /** grant creates a lease, raising the TTL to etcd's minimum. */
  Lease grant(long requestedTtlSeconds, Object owner, long now) {
    long ttl = Math.max(requestedTtlSeconds, Scenario.MIN_TTL_SECONDS);
    long id = nextLeaseId;
    nextLeaseId += 0x1_0001L;
    Lease l = new Lease(id, ttl, owner, now + ttl * Scenario.S);
    leases.put(id, l);
    return l;
  }

  /** TxnOutcome: won (revision), lost (holder, revision) or failed (lease not found). */
  record TxnOutcome(boolean won, boolean leaseNotFound, KeyRecord holder, long revision) {}

  /** campaign is {@code Txn(If CreateRevision(K)==0, Then Put(K, holder, lease), Else Get(K))}. */
  TxnOutcome campaign(String holder, long leaseId, long now) {
    if (key != null) {
      return new TxnOutcome(false, false, key, revision);
    }
    Lease l = leases.get(leaseId);
    if (l == null || l.expiry <= now) {
      // etcd checks the Then branch's put: a lease that is gone fails the whole transaction.
      return new TxnOutcome(false, true, null, revision);
    }
    revision++;
    key = new KeyRecord(holder, leaseId, revision, revision);
    emit(new KeyEvent(true, revision, key));
    return new TxnOutcome(true, false, key, revision);
  }

  /** queued is the queue as a read shows it: the participant keys, lowest mod revision first. */
  List<Participant> queued() {
    List<Participant> out = new ArrayList<>(queue.values());
    out.sort(Comparator.comparingLong(Participant::modRevision).thenComparingLong(Participant::leaseId));
    return out;
  }

  /** alive: the lease exists and has not expired (an expired one waits for the sweep, unusable). */
  private boolean alive(long leaseId, long now) {
    Lease l = leases.get(leaseId);
    return l != null && l.expiry > now;
  }

  /**
   * enlist is {@code Put(P(lease), candidateId, lease)}: a new participant key, or the same one
   * moved to the queue's tail (its create revision stays). Returns the revision, or -1 when the
   * lease is gone (etcd fails a put on a missing lease).
   */
  long enlist(String candidateId, long leaseId, long now) {
    return enlist(candidateId, leaseId, 0, now);
  }

  /** enlist as above, for a candidate of {@code priority} (its key's name spells it, §4.5). */
  long enlist(String candidateId, long leaseId, int priority, long now) {
    if (!alive(leaseId, now)) {
      return -1;
    }
    revision++;
    putParticipant(candidateId, leaseId, priority);
    return revision;
  }

  /** HandoverOutcome: committed (revision), refused (K as it stands, revision) or failed (lease not found). */
  record HandoverOutcome(boolean committed, boolean leaseNotFound, KeyRecord key, long revision) {}

  /**
   * handover is {@code Txn(If ModRevision(K) == token ∧ CreateRevision(P(succ)) ==
   * succ.createRevision, Then Put(K, succ.id, succ.lease), Put(P(lease), candidateId, lease),
   * Else Get(K))}; the Then branch fails the whole transaction when one of its leases is gone.
   */
  HandoverOutcome handover(String candidateId, long leaseId, long token, Participant succ, long now) {
    return handover(candidateId, leaseId, 0, token, succ, now);
  }

  /** handover as above, from a resigner of {@code priority}, whose participant key goes to the tail. */
  HandoverOutcome handover(String candidateId, long leaseId, int priority, long token, Participant succ, long now) {
    Participant p = queue.get(succ.leaseId());
    boolean holds = key != null && key.modRevision() == token;
    if (!holds || p == null || p.createRevision() != succ.createRevision()) {
      return new HandoverOutcome(false, false, key, revision);
    }
    if (!alive(succ.leaseId(), now) || !alive(leaseId, now)) {
      return new HandoverOutcome(false, true, null, revision);
    }
    revision++;
    key = new KeyRecord(succ.candidateId(), succ.leaseId(), key.createRevision(), revision);
    emit(new KeyEvent(true, revision, key));
    putParticipant(candidateId, leaseId, priority);
    return new HandoverOutcome(true, false, key, revision);
  }

  private void putParticipant(String candidateId, long leaseId, int priority) {
    Participant old = queue.get(leaseId);
    Participant p = new Participant(candidateId, leaseId, old != null ? old.createRevision() : revision, revision,
        priority);
    queue.put(leaseId, p);
    emit(KeyEvent.enlisted(revision, p));
  }

  /** keepAlive renews a live lease and returns its TTL, or -1 when it is gone or expired. */
  long keepAlive(long leaseId, long now) {
    Lease l = leases.get(leaseId);
    if (l == null || l.expiry <= now) {
      // etcd does not resurrect an expired lease; the renewal waits for the revocation and
      // reports it not found.
      return -1;
    }
    l.expiry = now + l.ttlSeconds * Scenario.S;
    return l.ttlSeconds;
  }

  /** timeToLive is the remaining TTL in seconds (at least 1 while alive), or -1. */
  long timeToLive(long leaseId, long now) {
    Lease l = leases.get(leaseId);
    if (l == null || l.expiry <= now) {
      return -1;
    }
    return Math.max(1, (l.expiry - now) / Scenario.S);
  }

  /** revoke removes the lease and its keys (K if bound to it, its participant key) in one revision; false when not found. */
  boolean revoke(long leaseId, String why) {
    Lease l = leases.remove(leaseId);
    if (l == null) {
      return false;
    }
    boolean ownsKey = key != null && key.leaseId() == leaseId;
    boolean queued = queue.containsKey(leaseId);
    if (ownsKey || queued) {
      revision++;
    }
    if (ownsKey) {
      key = null;
      emit(new KeyEvent(false, revision, null));
    }
    if (queued) {
      queue.remove(leaseId);
      emit(KeyEvent.withdrawn(revision, leaseId));
    }
    listener.leaseRemoved(l, why);
    return true;
  }

  /** sweep revokes every lease whose expiry has passed (etcd's lessor, every 500 ms). */
  void sweep(long now) {
    if (!hasLeader) {
      return; // a demoted lessor expires nothing
    }
    List<Long> expired = new ArrayList<>();
    for (Lease l : leases.values()) {
      if (l.expiry <= now) {
        expired.add(l.id);
      }
    }
    for (long id : expired) {
      revoke(id, "expired");
    }
  }

  /** promote is a new leader taking over: every lease gets TTL + election timeout from now. */
  void promote(long now) {
    for (Lease l : leases.values()) {
      l.expiry = now + l.ttlSeconds * Scenario.S + Scenario.ELECTION_TIMEOUT;
    }
  }

  /** unrelatedWrite is a write to another key: the revision moves, K does not. */
  void unrelatedWrite() {
    revision++;
  }

  /** compact discards history up to the current revision. */
  void compact() {
    compactRevision = revision;
    history.clear();
  }

  /** adminDelete deletes K by hand (the lease stays). */
  boolean adminDelete() {
    if (key == null) {
      return false;
    }
    revision++;
    key = null;
    emit(new KeyEvent(false, revision, null));
    return true;
  }

  /** adminDeleteParticipant deletes the participant key of {@code lease} by hand (the lease stays). */
  boolean adminDeleteParticipant(long lease) {
    if (queue.remove(lease) == null) {
      return false;
    }
    revision++;
    emit(KeyEvent.withdrawn(revision, lease));
    return true;
  }

  /** isolate freezes the old leader's view; the majority has no leader until it elects one. */
  void isolate() {
    isolated = true;
    isoTerm = term;
    isoRevision = revision;
    isoKey = key;
    isoQueue = queued();
    isoLeaseTtl.clear();
    for (Lease l : leases.values()) {
      isoLeaseTtl.put(l.id, l.ttlSeconds);
    }
    hasLeader = false;
  }

  private void emit(KeyEvent e) {
    history.add(e);
    listener.keyChanged(e);
  }
}
