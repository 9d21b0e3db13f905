package dev.leasehold.etcd;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.Participant;
import dev.leasehold.runtime.FlightEvents;
import dev.leasehold.runtime.Input;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.OptionsUtil;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * EtcdWatch is one watch of the machine ({@code EtcdCommand.Watch}): the election key and the
 * participant keys under it, and the transfer request key among them (PROTOCOL.md §4.5), from the
 * same revision, reported under the machine's one watch id.
 *
 * <p>It is two jetcd watchers, one on the key and one on the participant prefix, rather than one
 * range watch filtered client-side: a range that holds both the key and the prefix,
 * {@code [K, prefixEnd(K/candidates/))}, also holds every key that extends {@code K}'s name and
 * sorts before {@code K/candidates0} ({@code K-2}, {@code K.x}, {@code K/other}: another
 * election's key and its participants), whose traffic every candidate would then receive and
 * drop. The price is that the two watchers' events are not ordered with one another (each is in
 * revision order, and each event carries its revision); the queue is a hint (§4.5), and the
 * key's events are the same as before.
 *
 * <p>The first failure of either watcher is reported once, as one {@code WatchFailed}; after it,
 * and after {@link #close} or {@link #abandon}, nothing more is reported for this id. The
 * watcher that did not fail stays open until the store closes this watch (the machine's next
 * {@code Watch} or {@code CancelWatch}, or the store's close): closing it from jetcd's callback
 * thread would take jetcd's watch lock there.
 *
 * <p>Thread-safe: jetcd calls the listeners on its own threads, concurrently for the two
 * watchers; they only map data and hand it to the inbox, and never block. {@link #close} and
 * {@link #abandon} run on the caller's thread (the runtime's event loop).
 */
final class EtcdWatch {
  private final long id;
  private final String electionKey;
  private final EtcdReasons reasons;
  private final Consumer<Input> inbox;
  private final AtomicBoolean ended = new AtomicBoolean();
  private final Watch.Watcher keyWatcher;
  private final Watch.Watcher queueWatcher;
  private final ByteSequence transferRequest;

  /**
   * EtcdWatch opens both watchers on {@code client}, from {@code fromRevision} with
   * requireLeader, reporting to {@code inbox} as watch {@code id}; the queue's only {@code
   * withQueue} (etcd may have refused this elector the prefix, see QueueAccess).
   */
  EtcdWatch(
      Client client, String electionKey, long id, long fromRevision, boolean withQueue,
      EtcdReasons reasons, Consumer<Input> inbox) {
    this.id = id;
    this.electionKey = electionKey;
    this.reasons = reasons;
    this.inbox = inbox;
    this.transferRequest = bytes(Participant.transferRequestKey(electionKey));
    ByteSequence key = bytes(electionKey);
    ByteSequence prefix = bytes(Participant.prefix(electionKey));
    this.keyWatcher =
        EndingWatcher.open(
            client,
            key,
            options(fromRevision).build(),
            Watch.listener(this::onKey, this::failed, this::completed));
    Watch.Watcher q = null;
    try {
      if (withQueue) {
        q = EndingWatcher.open(
            client,
            prefix,
            options(fromRevision).withRange(OptionsUtil.prefixEndOf(prefix)).build(),
            Watch.listener(this::onQueue, this::failed, this::completed));
      }
    } catch (RuntimeException closedClient) {
      close();
      throw closedClient;
    }
    this.queueWatcher = q;
  }

  /** id is the machine's id of this watch. */
  long id() {
    return id;
  }

  /** close ends both watchers; nothing more is reported for this watch, not even their ends. */
  void close() {
    ended.set(true);
    keyWatcher.close();
    if (queueWatcher != null) {
      queueWatcher.close();
    }
  }

  /**
   * abandon stops reporting for this watch without touching the watchers (they go with the
   * client being replaced), and tells whether its end is still to be reported.
   */
  boolean abandon() {
    return ended.compareAndSet(false, true);
  }

  // The arrival of a notification on the store's thread, for a JFR recording.
  private static void record(String type, KeyValue kv) {
    FlightEvents.WatchNotification n = new FlightEvents.WatchNotification();
    if (n.shouldCommit()) {
      n.key = kv.getKey().toString(StandardCharsets.UTF_8);
      n.type = type;
      n.revision = kv.getModRevision();
      n.nanoTime = System.nanoTime();
      n.commit();
    }
  }

  private void onKey(WatchResponse response) {
    each(response,
        kv -> {
          record("PUT", kv);
          inbox.accept(new EtcdInput.WatchPut(id, EtcdRecords.record(kv), kv.getModRevision()));
        },
        kv -> {
          record("DELETE", kv);
          inbox.accept(new EtcdInput.WatchDelete(id, kv.getModRevision()));
        });
  }

  private void onQueue(WatchResponse response) {
    each(response,
        kv -> {
          Participant p = EtcdRecords.participant(electionKey, kv);
          if (p == null && kv.getKey().equals(transferRequest)) {
            inbox.accept(new EtcdInput.TransferRequested(
                id, kv.getValue().toString(StandardCharsets.UTF_8), kv.getModRevision()));
          } else if (p != null) {
            inbox.accept(new EtcdInput.WatchEnlisted(id, p, kv.getModRevision()));
          }
        },
        kv -> {
          // A deletion's key-value has the key and the deletion's revision, no lease.
          long leaseId = EtcdRecords.leaseOf(electionKey, kv);
          if (leaseId != 0) {
            inbox.accept(new EtcdInput.WatchWithdrawn(id, leaseId, kv.getModRevision()));
          }
        });
  }

  // Hands each put and delete of a response to its handler, unless the watch ended; UNRECOGNIZED
  // events carry nothing to act on (the next poll corrects any gap).
  private void each(WatchResponse response, Consumer<KeyValue> put, Consumer<KeyValue> delete) {
    if (ended.get()) {
      return;
    }
    for (WatchEvent e : response.getEvents()) {
      switch (e.getEventType()) {
        case PUT -> put.accept(e.getKeyValue());
        case DELETE -> delete.accept(e.getKeyValue());
        default -> {}
      }
    }
  }


  private void failed(Throwable error) {
    if (ended.compareAndSet(false, true)) {
      inbox.accept(
          new EtcdInput.WatchFailed(
              id, unwrap(error) instanceof CompactedException, reasons.describe(error, "watch")));
    }
  }

  private void completed() {
    if (ended.compareAndSet(false, true)) {
      inbox.accept(new EtcdInput.WatchFailed(id, false, "watch completed"));
    }
  }

  private static WatchOption.Builder options(long fromRevision) {
    return WatchOption.builder().withRevision(fromRevision).withRequireLeader(true);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
