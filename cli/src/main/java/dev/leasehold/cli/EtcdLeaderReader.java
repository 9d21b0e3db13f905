package dev.leasehold.cli;

import dev.leasehold.Durations;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * EtcdLeaderReader reads the key and its lease's time to live with a jetcd client of its own,
 * linearizable reads only: it never writes, grants or campaigns.
 *
 * <p>Thread-safe (jetcd's client is).
 */
final class EtcdLeaderReader implements LeaderReader {
  private final Client client;
  private final ByteSequence key;
  private final String keyText;
  // "etcd at host:port, ...": the endpoints a failed call may have gone to (jetcd picks one).
  private final String where;
  private volatile Watch.Watcher watcher;

  private EtcdLeaderReader(Client client, String key, String where) {
    this.client = client;
    this.where = where;
    this.keyText = key;
    this.key = ByteSequence.from(key, StandardCharsets.UTF_8);
  }

  /** open makes the client from validated options; it connects on the first call. */
  static EtcdLeaderReader open(StoreOptions o, String key) {
    return new EtcdLeaderReader(EtcdClients.build(o), key, o.where());
  }

  @Override
  public Snapshot read(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    String within = " within " + Durations.seconds(timeout);
    GetResponse r = await(client.getKVClient().get(key), end, "get " + keyText, within);
    if (r.getKvs().isEmpty()) {
      return Snapshot.NOBODY;
    }
    KeyValue kv = r.getKvs().get(0);
    String id = kv.getValue().toString(StandardCharsets.UTF_8);
    Duration left = Duration.ZERO;
    Duration granted = Duration.ZERO;
    if (kv.getLease() != 0) {
      LeaseTimeToLiveResponse ttl = await(client.getLeaseClient().timeToLive(kv.getLease(), LeaseOption.DEFAULT),
          end, "time-to-live of lease " + Long.toHexString(kv.getLease()), within);
      left = Duration.ofSeconds(Math.max(0, ttl.getTTL()));
      granted = Duration.ofSeconds(Math.max(0, ttl.getGrantedTTL()));
    }
    return new Snapshot(Optional.of(id), kv.getModRevision(), kv.getLease(), left, granted);
  }

  @Override
  public void onChange(Runnable wakeUp) {
    WatchOption opt = WatchOption.builder().withRequireLeader(true).build();
    watcher = client.getWatchClient().watch(key, opt, Watch.listener(response -> wakeUp.run(), error -> wakeUp.run()));
  }

  @Override
  public void close() {
    Watch.Watcher w = watcher;
    if (w != null) {
      w.close();
    }
    client.close();
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> call, long end, String what, String within) {
    return EtcdClients.await(call, end, where, what, within);
  }
}
