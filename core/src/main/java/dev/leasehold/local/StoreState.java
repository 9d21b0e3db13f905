package dev.leasehold.local;

import dev.leasehold.protocol.EtcdInput;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.runtime.Input;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;

/**
 * StoreState is the data of a {@link LocalStore}, with etcd's semantics for the parts the
 * protocol uses: one revision counter for the whole store, leases with TTLs on the store's
 * monotonic clock, keys bound to leases (a lease that ends deletes its keys in one revision),
 * and watches that replay a key's recent changes from a revision.
 *
 * <p>Not thread-safe: every method runs under the owning store's lock. Watch notifications
 * are handed to {@code deliver}, which queues them for the store thread in the order of the
 * changes, and never runs them inline.
 */
final class StoreState {
  /** HISTORY is how many changes per key a watch can replay; older starts fail as compacted. */
  static final int HISTORY = 64;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** Lease is a granted lease; it lives while {@code now - expiresAt < 0}. */
  static final class Lease {
    final long id;
    final long ttlSeconds;
    long expiresAt;
    final Set<String> keys = new LinkedHashSet<>();

    Lease(long id, long ttlSeconds, long expiresAt) {
      this.id = id;
      this.ttlSeconds = ttlSeconds;
      this.expiresAt = expiresAt;
    }
  }

  /** Change is one put ({@code key} set) or delete ({@code key} null) of a key at a revision. */
  private record Change(long revision, KeyRecord key) {}

  /** History is a key's recent changes; {@code droppedThrough} is the newest one forgotten. */
  private static final class History {
    final ArrayDeque<Change> changes = new ArrayDeque<>();
    long droppedThrough;
  }

  /** Watcher is one open watch; {@code owner} is the port that opened it. */
  private record Watcher(Object owner, long id, String key, Consumer<Input> inbox) {}

  /** Expiry is a lease's expiry as queued; stale once the lease was renewed or removed. */
  private record Expiry(long at, long leaseId) {}

  private final Consumer<Runnable> deliver;
  private long revision = 1;
  private long nextLeaseId = 1;
  private final Map<Long, Lease> leases = new HashMap<>();
  private final Map<String, KeyRecord> keys = new HashMap<>();
  private final Map<String, History> histories = new HashMap<>();
  private final List<Watcher> watchers = new ArrayList<>();
  // Compared as differences: monotonic clock values may be negative.
  private final PriorityQueue<Expiry> expiries =
      new PriorityQueue<>((a, b) -> Long.signum(a.at() - b.at()));

  StoreState(Consumer<Runnable> deliver) {
    this.deliver = deliver;
  }

  /** revision is the store's current revision; every put or delete raises it by one. */
  long revision() {
    return revision;
  }

  /** get is the key's record, or null when absent. */
  KeyRecord get(String key) {
    return keys.get(key);
  }

  /** leaseCount is the number of live leases. */
  int leaseCount() {
    return leases.size();
  }

  /** keyCount is the number of keys present. */
  int keyCount() {
    return keys.size();
  }

  /** grant creates a lease of {@code ttlSeconds} (at least 1) expiring that long after now. */
  Lease grant(long ttlSeconds, long now) {
    long ttl = Math.max(1, ttlSeconds);
    Lease l = new Lease(nextLeaseId++, ttl, now + ttl * NANOS_PER_SECOND);
    leases.put(l.id, l);
    expiries.add(new Expiry(l.expiresAt, l.id));
    return l;
  }

  /** isAlive is true when the lease exists; call {@link #expireDue} first. */
  boolean isAlive(long leaseId) {
    return leases.containsKey(leaseId);
  }

  /** keepAlive gives a live lease its full TTL again from now; 0 when the lease is gone. */
  long keepAlive(long leaseId, long now) {
    Lease l = leases.get(leaseId);
    if (l == null) {
      return 0;
    }
    l.expiresAt = now + l.ttlSeconds * NANOS_PER_SECOND;
    expiries.add(new Expiry(l.expiresAt, l.id));
    return l.ttlSeconds;
  }

  /** put creates the absent key, bound to a live lease, at a new revision: its create revision. */
  KeyRecord put(String key, String value, long leaseId) {
    revision++;
    KeyRecord record = new KeyRecord(value, leaseId, revision, revision);
    keys.put(key, record);
    leases.get(leaseId).keys.add(key);
    changed(key, new Change(revision, record));
    return record;
  }

  /** deleteKey deletes the key at a new revision and leaves its lease alive; false if absent. */
  boolean deleteKey(String key) {
    KeyRecord old = keys.remove(key);
    if (old == null) {
      return false;
    }
    Lease lease = leases.get(old.leaseId());
    if (lease != null) {
      lease.keys.remove(key);
    }
    revision++;
    changed(key, new Change(revision, null));
    return true;
  }

  /** revoke ends the lease and deletes its keys, all in one new revision; false if absent. */
  boolean revoke(long leaseId) {
    Lease lease = leases.remove(leaseId);
    if (lease == null) {
      return false;
    }
    if (!lease.keys.isEmpty()) {
      revision++;
      for (String key : lease.keys) {
        keys.remove(key);
        changed(key, new Change(revision, null));
      }
    }
    return true;
  }

  /** expireDue revokes every lease whose expiry is at or before {@code now}. */
  void expireDue(long now) {
    while (!expiries.isEmpty() && now - expiries.peek().at() >= 0) {
      Expiry e = expiries.poll();
      Lease l = leases.get(e.leaseId());
      if (l != null && l.expiresAt == e.at()) {
        revoke(l.id);
      }
    }
  }

  /** nextExpiry is the earliest time a live lease expires; {@code fallback} when none does. */
  long nextExpiry(long fallback) {
    while (!expiries.isEmpty()) {
      Expiry e = expiries.peek();
      Lease l = leases.get(e.leaseId());
      if (l != null && l.expiresAt == e.at()) {
        return e.at();
      }
      expiries.poll();
    }
    return fallback;
  }

  /**
   * watch opens a watch of {@code key} that first replays the key's changes from
   * {@code fromRevision} on, then reports each new one; it fails as compacted when changes
   * from that revision were already forgotten.
   */
  void watch(Object owner, long id, String key, long fromRevision, Consumer<Input> inbox) {
    cancelWatch(owner, id);
    History h = histories.get(key);
    if (h != null && fromRevision <= h.droppedThrough) {
      deliver.accept(
          () -> inbox.accept(
              new EtcdInput.WatchFailed(id, true, "revision " + fromRevision + " compacted")));
      return;
    }
    Watcher w = new Watcher(owner, id, key, inbox);
    watchers.add(w);
    if (h != null) {
      for (Change c : h.changes) {
        if (c.revision() >= fromRevision) {
          notify(w, c);
        }
      }
    }
  }

  /** cancelWatch closes the owner's watch {@code id}, if open. */
  void cancelWatch(Object owner, long id) {
    watchers.removeIf(w -> w.owner() == owner && w.id() == id);
  }

  /** cancelWatches closes every watch of the owner. */
  void cancelWatches(Object owner) {
    watchers.removeIf(w -> w.owner() == owner);
  }

  /** failWatches ends every open watch with {@code reason}, as etcd's requireLeader does. */
  void failWatches(String reason) {
    for (Watcher w : watchers) {
      deliver.accept(() -> w.inbox().accept(new EtcdInput.WatchFailed(w.id(), false, reason)));
    }
    watchers.clear();
  }

  private void changed(String key, Change c) {
    History h = histories.computeIfAbsent(key, k -> new History());
    h.changes.addLast(c);
    if (h.changes.size() > HISTORY) {
      h.droppedThrough = h.changes.removeFirst().revision();
    }
    for (Watcher w : watchers) {
      if (w.key().equals(key)) {
        notify(w, c);
      }
    }
  }

  private void notify(Watcher w, Change c) {
    Input event =
        c.key() != null
            ? new EtcdInput.WatchPut(w.id(), c.key(), c.revision())
            : new EtcdInput.WatchDelete(w.id(), c.revision());
    deliver.accept(() -> w.inbox().accept(event));
  }
}
