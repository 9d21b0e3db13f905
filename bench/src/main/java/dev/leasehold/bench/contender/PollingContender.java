package dev.leasehold.bench.contender;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * PollingContender is the seed's original design, written in Java from its description:
 * every TTL/2 a follower grants a lease, tries {@code If CreateRevision(key)==0 Then
 * Put(key, id, lease)} and revokes the lease when it loses; the master renews with a single
 * keep-alive per round and stays master until a keep-alive fails; there is no local deadline;
 * a watch on the key only flips the master flag off (it never triggers a campaign).
 *
 * <p>Choices the description leaves open, made in the design's favour and stated in the
 * report: every call has a timeout of one round (TTL/2), so a keep-alive into a partition
 * fails after one round instead of hanging; {@code resign()} revokes the lease and sits out
 * one round (the seed has no resign; this equals close-and-restart without the JVM start).
 *
 * <p>All state is confined to one single-threaded executor, like the seed's loop.
 */
final class PollingContender implements Contender {
  private final Client client;
  private final boolean ownsClient;
  private final ByteSequence key;
  private final ByteSequence value;
  private final long ttlSeconds;
  private final long roundMillis;
  private final Sink sink;
  private final ScheduledExecutorService loop;

  // Confined to loop.
  private boolean master;
  private long leaseId;
  private boolean sitOut;
  private Watch.Watcher watcher;
  private boolean closed;

  PollingContender(Client client, String[] endpoints, String key, String id, Duration ttl, Sink sink) {
    this.ownsClient = client == null;
    this.client = client != null ? client : Client.builder().endpoints(endpoints).build();
    this.key = ByteSequence.from(key, StandardCharsets.UTF_8);
    this.value = ByteSequence.from(id, StandardCharsets.UTF_8);
    this.ttlSeconds = ttl.toSeconds();
    this.roundMillis = ttl.toMillis() / 2;
    this.sink = sink;
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "polling-contender-" + id);
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void start() {
    loop.execute(
        () ->
            watcher =
                client
                    .getWatchClient()
                    .watch(key, Watch.listener(r -> loop.execute(() -> onWatch(r)), e -> {})));
    loop.scheduleAtFixedRate(this::round, 0, roundMillis, TimeUnit.MILLISECONDS);
  }

  private void round() {
    if (closed) {
      return;
    }
    if (master) {
      try {
        // jetcd fails the future when the returned TTL is 0 (lease gone).
        client.getLeaseClient().keepAliveOnce(leaseId).get(roundMillis, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        if (master) {
          master = false;
          sink.lost(System.nanoTime(), "KEEPALIVE_FAILED");
        }
      }
      return;
    }
    if (sitOut) {
      sitOut = false;
      return;
    }
    long lease = 0;
    try {
      lease =
          client.getLeaseClient().grant(ttlSeconds).get(roundMillis, TimeUnit.MILLISECONDS).getID();
      TxnResponse t =
          client
              .getKVClient()
              .txn()
              .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
              .Then(Op.put(key, value, PutOption.builder().withLeaseId(lease).build()))
              .Else(Op.get(key, GetOption.DEFAULT))
              .commit()
              .get(roundMillis, TimeUnit.MILLISECONDS);
      if (t.isSucceeded()) {
        master = true;
        leaseId = lease;
        long now = System.nanoTime();
        sink.elected(now, now);
        return;
      }
      client.getLeaseClient().revoke(lease).get(roundMillis, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (lease != 0) {
        client.getLeaseClient().revoke(lease);
      }
    }
  }

  private void onWatch(WatchResponse r) {
    for (WatchEvent e : r.getEvents()) {
      KeyValue kv = e.getKeyValue();
      boolean gone =
          e.getEventType() == WatchEvent.EventType.DELETE
              || (e.getEventType() == WatchEvent.EventType.PUT && kv.getLease() != leaseId);
      if (master && gone) {
        master = false;
        sink.lost(System.nanoTime(), "WATCH");
      }
    }
  }

  @Override
  public void resign() {
    loop.execute(
        () -> {
          if (!master || closed) {
            return;
          }
          master = false;
          sink.lost(System.nanoTime(), "RESIGNED");
          sitOut = true;
          try {
            client.getLeaseClient().revoke(leaseId).get(roundMillis, TimeUnit.MILLISECONDS);
          } catch (Exception e) {
            // The lease expires within its TTL.
          }
        });
  }

  @Override
  public void close() {
    try {
      loop.submit(
              () -> {
                closed = true;
                if (master) {
                  master = false;
                  sink.lost(System.nanoTime(), "CLOSED");
                  try {
                    client.getLeaseClient().revoke(leaseId).get(2, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    // The lease expires within its TTL.
                  }
                }
                if (watcher != null) {
                  watcher.close();
                }
              })
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Best effort; the process exits next.
    }
    loop.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }
}
