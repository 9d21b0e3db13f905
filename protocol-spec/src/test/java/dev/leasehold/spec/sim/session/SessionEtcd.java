package dev.leasehold.spec.sim.session;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.etcd.protocol.SessionInput;
import dev.leasehold.etcd.protocol.SessionMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SessionEtcd is the session simulation's etcd: one linearizable store (the majority's view)
 * with a revision counter, any number of keys, leases that expire on the server clock and are
 * swept every 500 ms (a lease's removal deletes every key bound to it, in one revision, in key
 * order), a raft term, and leader loss. Each request method answers as the majority's leader
 * would, with the input {@code EtcdPort}, {@code SessionElectionPort} or {@code SessionHub} would map
 * the answer to; null is no answer (the caller times out).
 *
 * <p>What it leaves out (the single-election simulation covers them for the shared {@code
 * Lease} code): an isolated old leader serving stale acks, compaction, unrelated writes.
 *
 * <p>Not thread-safe: one simulation owns it. Time is true time, in nanoseconds.
 */
final class SessionEtcd {
  static final long S = 1_000_000_000L;
  static final long MIN_TTL_SECONDS = 2;
  static final long ELECTION_TIMEOUT = S;

  /** Change is a put (record) or delete (null record) of one key at a revision, as a watch reports it. */
  record Change(String key, KeyRecord record, long revision) {}

  /** Listener hears every committed change (to feed watches). */
  interface Listener {
    void changed(Change c);
  }

  private static final class Lease {
    final long ttlSeconds;
    long expiry;

    Lease(long ttlSeconds, long expiry) {
      this.ttlSeconds = ttlSeconds;
      this.expiry = expiry;
    }
  }

  private final SessionSim sim;
  private final Listener listener;
  final TreeMap<String, KeyRecord> keys = new TreeMap<>();
  final TreeMap<Long, Lease> leases = new TreeMap<>();
  long revision;
  long term = 2;
  boolean hasLeader = true;
  private long nextLeaseId;

  SessionEtcd(SessionSim sim, Listener listener, long firstRevision, long firstLeaseId) {
    this.sim = sim;
    this.listener = listener;
    this.revision = firstRevision;
    this.nextLeaseId = firstLeaseId;
  }

  private long now() {
    return sim.now;
  }

  private boolean alive(long leaseId) {
    Lease l = leases.get(leaseId);
    return l != null && l.expiry > now();
  }

  /** noLeader: a member without a leader fails the request at once, or lets it time out. */
  private Object noLeader(Object failure) {
    return sim.rnd.nextBoolean() ? failure : null;
  }

  // ---- the lease's calls (EtcdPort's answers) ----

  Object grant(long op, long requestedTtl) {
    if (!hasLeader) {
      return noLeader(new EtcdInput.GrantFailed(op, "etcdserver: no leader"));
    }
    long ttl = Math.max(requestedTtl, MIN_TTL_SECONDS);
    long id = nextLeaseId;
    nextLeaseId += 0x1_0001L;
    leases.put(id, new Lease(ttl, now() + ttl * S));
    sim.note("etcd: grant lease " + Long.toHexString(id) + " ttl=" + ttl + "s");
    return new EtcdInput.LeaseGranted(op, id, ttl);
  }

  Object keepAlive(long op, long leaseId) {
    if (!hasLeader) {
      return noLeader(new EtcdInput.KeepAliveFailed(op, false, "etcdserver: no leader"));
    }
    Lease l = leases.get(leaseId);
    if (l == null || l.expiry <= now()) {
      return sim.rnd.nextBoolean()
          ? new EtcdInput.KeepAliveAcked(op, 0, term)
          : new EtcdInput.KeepAliveFailed(op, true, "etcdserver: requested lease not found");
    }
    l.expiry = now() + l.ttlSeconds * S;
    return new EtcdInput.KeepAliveAcked(op, l.ttlSeconds, term);
  }

  /** confirm is the renewal's confirming read of the prefix key itself: absent, at the current revision. */
  Object confirm(long op, String key) {
    if (!hasLeader) {
      return noLeader(new EtcdInput.ConfirmFailed(op, "etcdserver: no leader"));
    }
    return new EtcdInput.ConfirmRead(op, keys.get(key), revision, term, -1);
  }

  Object probe(long op, long leaseId) {
    if (!hasLeader) {
      return noLeader(new EtcdInput.LeaseProbed(op, false, false));
    }
    return new EtcdInput.LeaseProbed(op, true, alive(leaseId));
  }

  /** revoke answers TRUE (revoked), "not found", or FALSE (failed). */
  Object revoke(long leaseId, String by) {
    if (!hasLeader) {
      return noLeader(Boolean.FALSE);
    }
    return remove(leaseId, "revoked by " + by) ? Boolean.TRUE : "not found";
  }

  // ---- an election's calls (SessionElectionPort's answers) ----

  /** campaign is {@code Txn(If CreateRevision(K)==0 Then Put(K, holder, lease) Else Get(K))}. */
  Object campaign(long op, String key, String holder, long leaseId) {
    if (!hasLeader) {
      return noLeader(new EtcdInput.CampaignFailed(op, "etcdserver: no leader"));
    }
    KeyRecord k = keys.get(key);
    if (k != null) {
      return new EtcdInput.CampaignLost(op, k, revision);
    }
    if (!alive(leaseId)) {
      return new EtcdInput.CampaignFailed(op, "etcdserver: requested lease not found");
    }
    revision++;
    KeyRecord put = new KeyRecord(holder, leaseId, revision, revision);
    keys.put(key, put);
    sim.note("etcd: " + holder + " put " + key + " lease=" + Long.toHexString(leaseId) + " rev=" + revision);
    listener.changed(new Change(key, put, revision));
    return new EtcdInput.CampaignWon(op, revision);
  }

  /** fencedDelete is {@code Txn(If ModRevision(K) == token Then Delete(K))}. */
  Object fencedDelete(long op, String key, long token) {
    if (!hasLeader) {
      return noLeader(new SessionInput.DeleteFailed(op, "etcdserver: no leader"));
    }
    KeyRecord k = keys.get(key);
    if (k == null || k.modRevision() != token) {
      return new SessionInput.Deleted(op, false, revision);
    }
    revision++;
    keys.remove(key);
    sim.note("etcd: fenced delete of " + key + " token=" + token + " rev=" + revision);
    listener.changed(new Change(key, null, revision));
    return new SessionInput.Deleted(op, true, revision);
  }

  /** put is a plain {@code Put(K, value, lease)}: a member key; TRUE, or a failure's reason, or null. */
  Object put(String key, String value, long leaseId) {
    if (!hasLeader) {
      return noLeader("etcdserver: no leader");
    }
    if (!alive(leaseId)) {
      return "etcdserver: requested lease not found";
    }
    revision++;
    KeyRecord old = keys.get(key);
    KeyRecord put = new KeyRecord(value, leaseId, old == null ? revision : old.createRevision(), revision);
    keys.put(key, put);
    sim.note("etcd: put " + key + "=" + value + " lease=" + Long.toHexString(leaseId) + " rev=" + revision);
    listener.changed(new Change(key, put, revision));
    return Boolean.TRUE;
  }

  /**
   * transfer is a move: {@code Txn(If ModRevision(K) == token ∧ CreateRevision(M(to)) ==
   * to.createRevision Then Put(K, to's id, lease = to's lease))}; the put keeps K's create
   * revision. A put on a lease that is gone fails the whole transaction, as etcd's does.
   */
  Object transfer(long op, String key, long token, String memberKey, SessionMember to) {
    if (!hasLeader) {
      return noLeader(new SessionInput.TransferFailed(op, "etcdserver: no leader"));
    }
    KeyRecord k = keys.get(key);
    KeyRecord m = keys.get(memberKey);
    if (k == null || k.modRevision() != token || m == null || m.createRevision() != to.createRevision()) {
      return new SessionInput.Transferred(op, false, revision);
    }
    if (!alive(to.leaseId())) {
      return new SessionInput.TransferFailed(op, "etcdserver: requested lease not found");
    }
    revision++;
    KeyRecord put = new KeyRecord(to.candidateId(), to.leaseId(), k.createRevision(), revision);
    keys.put(key, put);
    sim.note("etcd: move of " + key + " token=" + token + " to " + to.candidateId() + " lease="
        + Long.toHexString(to.leaseId()) + " rev=" + revision);
    listener.changed(new Change(key, put, revision));
    return new SessionInput.Transferred(op, true, revision);
  }

  /** read is a linearizable range over {@code prefix} (or of one key, {@code exact}), at one revision. */
  Read read(String prefix, boolean exact) {
    if (!hasLeader) {
      return null;
    }
    Map<String, KeyRecord> out = new TreeMap<>();
    if (exact) {
      KeyRecord k = keys.get(prefix);
      if (k != null) {
        out.put(prefix, k);
      }
    } else {
      keys.subMap(prefix, prefix + Character.MAX_VALUE).forEach(out::put);
    }
    return new Read(out, revision);
  }

  record Read(Map<String, KeyRecord> keys, long revision) {}

  // ---- the cluster ----

  /** sweep revokes every lease whose expiry has passed (etcd's lessor, every 500 ms). */
  void sweep() {
    if (!hasLeader) {
      return;
    }
    List<Long> expired = new ArrayList<>();
    leases.forEach((id, l) -> {
      if (l.expiry <= now()) {
        expired.add(id);
      }
    });
    for (long id : expired) {
      remove(id, "expired");
    }
  }

  /** loseLeader starts an etcd leader election: no proposals, reads or renewals until {@link #elect}. */
  void loseLeader() {
    hasLeader = false;
  }

  /** elect ends the leader election: a new term, and every lease gets its TTL plus an election timeout from now. */
  void elect() {
    hasLeader = true;
    term++;
    leases.values().forEach(l -> l.expiry = now() + l.ttlSeconds * S + ELECTION_TIMEOUT);
  }

  private boolean remove(long leaseId, String why) {
    if (leases.remove(leaseId) == null) {
      return false;
    }
    List<String> bound = new ArrayList<>();
    keys.forEach((k, r) -> {
      if (r.leaseId() == leaseId) {
        bound.add(k);
      }
    });
    if (!bound.isEmpty()) {
      revision++;
    }
    for (String k : bound) {
      keys.remove(k);
      listener.changed(new Change(k, null, revision));
    }
    sim.note("etcd: lease " + Long.toHexString(leaseId) + " " + why + (bound.isEmpty() ? "" : ", deleting " + bound));
    return true;
  }
}
