package dev.leasehold.spec.sim;

import dev.leasehold.protocol.KeyRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SimStore is the simulated etcd: one linearizable store (the majority side of the cluster) with
 * a revision counter, the election key K, leases that expire on the server clock and are swept
 * every 500 ms, a raft term, and the state an isolated old leader keeps serving from.
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

  /** KeyEvent is a put or delete of K at a revision, as a watch reports it. */
  record KeyEvent(boolean put, long revision, KeyRecord record) {}

  /** Listener hears every change of K (to feed watches) and every lease removal. */
  interface Listener {
    void keyChanged(KeyEvent e);

    void leaseRemoved(Lease l, String why);
  }

  private final Listener listener;
  long revision;
  long compactRevision;
  KeyRecord key;
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

  /** revoke removes the lease and its key; false when not found. */
  boolean revoke(long leaseId, String why) {
    Lease l = leases.remove(leaseId);
    if (l == null) {
      return false;
    }
    if (key != null && key.leaseId() == leaseId) {
      revision++;
      key = null;
      emit(new KeyEvent(false, revision, null));
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

  /** isolate freezes the old leader's view; the majority has no leader until it elects one. */
  void isolate() {
    isolated = true;
    isoTerm = term;
    isoRevision = revision;
    isoKey = key;
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
