package dev.leasehold.local;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * StoreState is the data of a {@link LocalStore}, with etcd's semantics for the parts the
 * protocol uses: one revision counter for the whole store, leases with TTLs on the store's
 * monotonic clock, keys with create and mod revisions, bound to leases (a lease that ends
 * deletes all its keys in one revision, the election key and participant keys alike, in key
 * order as etcd does), writes of several keys in one revision (a transaction), and watches of
 * an election key and its participant keys ({@link Participant#prefix}) that replay their
 * recent changes from a revision.
 *
 * <p>Not thread-safe: every method runs under the owning store's lock. Watch notifications
 * are handed to {@code deliver}, which queues them for the store thread in the order of the
 * changes, and never runs them inline.
 */
final class StoreState {
  /** HISTORY is how many changes per key a watch can replay; older starts fail as compacted. */
  static final int HISTORY = 64;

  /**
   * DEAD_HISTORIES is how many deleted keys' histories are kept (participant keys come and go
   * with standby leases); beyond it the oldest is forgotten, and watches from before its last
   * change fail as compacted, as after an etcd compaction.
   */
  static final int DEAD_HISTORIES = 1024;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** Lease is a granted lease; it lives while {@code now - expiresAt < 0}. */
  static final class Lease {
    final long id;
    final long ttlSeconds;
    long expiresAt;
    /** keys are the keys bound to it, in key order (the order etcd deletes them in). */
    final Set<String> keys = new TreeSet<>();

    Lease(long id, long ttlSeconds, long expiresAt) {
      this.id = id;
      this.ttlSeconds = ttlSeconds;
      this.expiresAt = expiresAt;
    }
  }

  /** Put is one write of a transaction: {@code key} := {@code value}, bound to {@code leaseId}. */
  record Put(String key, String value, long leaseId) {}

  /**
   * Change is one put ({@code record} set) or delete ({@code record} null) of a key at a
   * revision; {@code seq} orders the changes of one revision as they were made.
   */
  private record Change(long seq, String key, long revision, KeyRecord record) {}

  /** History is a key's recent changes; {@code droppedThrough} is the newest one forgotten. */
  private static final class History {
    final ArrayDeque<Change> changes = new ArrayDeque<>();
    long droppedThrough;
  }

  /**
   * Watcher is one open watch of an election key, and with {@code queue} of its participant
   * keys; {@code owner} is the port that opened it.
   */
  private record Watcher(Object owner, long id, String key, boolean queue, Consumer<Input> inbox) {
    boolean covers(String changed) {
      return changed.equals(key) || queue && Participant.leaseOf(key, changed) != 0;
    }
  }

  /** Expiry is a lease's expiry as queued; stale once the lease was renewed or removed. */
  private record Expiry(long at, long leaseId) {}

  private final Consumer<Runnable> deliver;
  private long revision = 1;
  private long nextLeaseId = 1;
  private long changeSeq;
  private final Map<Long, Lease> leases = new HashMap<>();
  private final TreeMap<String, KeyRecord> keys = new TreeMap<>();
  private final Map<String, History> histories = new HashMap<>();
  /** deadKeys are the deleted keys whose histories are kept, the longest dead first. */
  private final LinkedHashSet<String> deadKeys = new LinkedHashSet<>();
  private long forgottenThrough;
  private final List<Watcher> watchers = new ArrayList<>();
  // Compared as differences: monotonic clock values may be negative.
  private final PriorityQueue<Expiry> expiries =
      new PriorityQueue<>((a, b) -> Long.signum(a.at() - b.at()));

  StoreState(Consumer<Runnable> deliver) {
    this.deliver = deliver;
  }

  /** revision is the store's current revision; every write (one key or a transaction) raises it by one. */
  long revision() {
    return revision;
  }

  /** get is the key's record, or null when absent. */
  KeyRecord get(String key) {
    return keys.get(key);
  }

  /**
   * ahead counts the participant keys of {@code electionKey} named before {@code end}, as etcd's
   * count of the range {@code [prefix, end)} does.
   */
  int ahead(String electionKey, String end) {
    String prefix = Participant.prefix(electionKey);
    int n = 0;
    for (String k : keys.subMap(prefix, true, end, false).keySet()) {
      if (Participant.leaseOf(electionKey, k) != 0) {
        n++;
      }
    }
    return n;
  }

  /**
   * participants is the queue of the election key: its participant keys in queue order
   * ({@link Participant#ORDER}), read at the current revision.
   */
  List<Participant> participants(String electionKey) {
    String prefix = Participant.prefix(electionKey);
    List<Participant> out = new ArrayList<>();
    for (Map.Entry<String, KeyRecord> e : keys.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      long lease = Participant.leaseOf(electionKey, e.getKey());
      if (lease != 0) {
        out.add(participant(electionKey, e.getKey(), e.getValue()));
      }
    }
    out.sort(Participant.ORDER);
    return out;
  }

  /** leaseCount is the number of live leases. */
  int leaseCount() {
    return leases.size();
  }

  /** keyCount is the number of keys present, participant keys included. */
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

  /** put writes one key, bound to a live lease, at a new revision; see {@link #write}. */
  KeyRecord put(String key, String value, long leaseId) {
    return write(List.of(new Put(key, value, leaseId))).get(0);
  }

  /**
   * write applies the puts, in order, all at one new revision, as an etcd transaction's Then
   * branch does: each key's mod revision becomes that revision, its create revision stays (or
   * is that revision when the key was absent), and it is bound to its put's lease (unbound from
   * any earlier one). Every lease must be alive; the caller checks, as etcd fails the whole
   * transaction otherwise. Returns the records written, in order.
   */
  List<KeyRecord> write(List<Put> puts) {
    for (Put p : puts) {
      if (!leases.containsKey(p.leaseId())) {
        throw new IllegalStateException("lease " + p.leaseId() + " not found");
      }
    }
    revision++;
    List<KeyRecord> out = new ArrayList<>(puts.size());
    for (Put p : puts) {
      KeyRecord old = keys.get(p.key());
      if (old != null && old.leaseId() != p.leaseId()) {
        Lease was = leases.get(old.leaseId());
        if (was != null) {
          was.keys.remove(p.key());
        }
      }
      long created = old != null ? old.createRevision() : revision;
      KeyRecord record = new KeyRecord(p.value(), p.leaseId(), created, revision);
      keys.put(p.key(), record);
      leases.get(p.leaseId()).keys.add(p.key());
      changed(new Change(++changeSeq, p.key(), revision, record));
      out.add(record);
    }
    return out;
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
    changed(new Change(++changeSeq, key, revision, null));
    return true;
  }

  /** revoke ends the lease and deletes its keys, in key order, all in one new revision; false if absent. */
  boolean revoke(long leaseId) {
    Lease lease = leases.remove(leaseId);
    if (lease == null) {
      return false;
    }
    if (!lease.keys.isEmpty()) {
      revision++;
      for (String key : lease.keys) {
        keys.remove(key);
        changed(new Change(++changeSeq, key, revision, null));
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
   * watch opens a watch of {@code key} (with {@code queue}, and its participant keys) that first replays their
   * changes from {@code fromRevision} on, in the order they were made, then reports each new
   * one; it fails as compacted when changes from that revision were already forgotten.
   */
  void watch(Object owner, long id, String key, boolean queue, long fromRevision, Consumer<Input> inbox) {
    cancelWatch(owner, id);
    Watcher w = new Watcher(owner, id, key, queue, inbox);
    boolean compacted = fromRevision <= forgottenThrough;
    List<Change> replay = new ArrayList<>();
    for (Map.Entry<String, History> e : histories.entrySet()) {
      if (!w.covers(e.getKey())) {
        continue;
      }
      History h = e.getValue();
      compacted |= fromRevision <= h.droppedThrough;
      for (Change c : h.changes) {
        if (c.revision() >= fromRevision) {
          replay.add(c);
        }
      }
    }
    if (compacted) {
      deliver.accept(
          () -> inbox.accept(
              new EtcdInput.WatchFailed(id, true, "revision " + fromRevision + " compacted")));
      return;
    }
    watchers.add(w);
    replay.sort(Comparator.comparingLong(Change::seq));
    for (Change c : replay) {
      notify(w, c);
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

  private void changed(Change c) {
    History h = histories.computeIfAbsent(c.key(), k -> new History());
    h.changes.addLast(c);
    if (h.changes.size() > HISTORY) {
      h.droppedThrough = h.changes.removeFirst().revision();
    }
    if (c.record() == null) {
      deadKeys.remove(c.key());
      deadKeys.add(c.key());
      if (deadKeys.size() > DEAD_HISTORIES) {
        Iterator<String> it = deadKeys.iterator();
        String oldest = it.next();
        it.remove();
        forgottenThrough = Math.max(forgottenThrough, histories.remove(oldest).changes.getLast().revision());
      }
    } else {
      deadKeys.remove(c.key());
    }
    for (Watcher w : watchers) {
      if (w.covers(c.key())) {
        notify(w, c);
      }
    }
  }

  private void notify(Watcher w, Change c) {
    Input event;
    if (c.key().equals(w.key())) {
      event =
          c.record() != null
              ? new EtcdInput.WatchPut(w.id(), c.record(), c.revision())
              : new EtcdInput.WatchDelete(w.id(), c.revision());
    } else {
      long lease = Participant.leaseOf(w.key(), c.key());
      event =
          c.record() != null
              ? new EtcdInput.WatchEnlisted(w.id(), participant(w.key(), c.key(), c.record()), c.revision())
              : new EtcdInput.WatchWithdrawn(w.id(), lease, c.revision());
    }
    deliver.accept(() -> w.inbox().accept(event));
  }

  /** participant is the queue entry of the participant key {@code key} with record {@code r}. */
  private static Participant participant(String electionKey, String key, KeyRecord r) {
    return new Participant(
        r.holderId(), Participant.leaseOf(electionKey, key), r.createRevision(), r.modRevision(),
        Participant.priorityOf(electionKey, key));
  }
}
