package dev.leasehold.cli;

import dev.leasehold.Durations;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

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
    ClientBuilder b = Client.builder().endpoints(o.trimmed().toArray(String[]::new)).waitForReady(false);
    if (o.cacert != null) {
      try {
        b.sslContext(ssl -> {
          ssl.trustManager(o.cacert.toFile());
          if (o.cert != null) {
            ssl.keyManager(o.cert.toFile(), o.keyFile.toFile());
          }
        });
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalArgumentException("--tls-ca/--tls-cert/--tls-key cannot make a TLS context: " + e.getMessage(), e);
      }
    }
    if (o.user != null) {
      b.user(ByteSequence.from(o.user, StandardCharsets.UTF_8))
          .password(ByteSequence.from(new String(o.etcdPassword()), StandardCharsets.UTF_8));
    }
    return new EtcdLeaderReader(b.build(), key, o.where());
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

  /**
   * refusal tells whether a failed call was etcd refusing this client (credentials, a permission,
   * a certificate) rather than not answering: waiting will not change its answer.
   */
  static boolean refusal(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
      if (t instanceof javax.net.ssl.SSLHandshakeException || t instanceof java.security.cert.CertificateException
          || m.contains("permission denied") || m.contains("authentication failed") || m.contains("user name is empty")) {
        return true;
      }
    }
    return false;
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> call, long end, String what, String within) {
    try {
      return call.get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new Leasehold.StoreUnreachableException(where + " did not answer " + what + within, e);
    } catch (ExecutionException e) {
      if (refusal(e.getCause())) {
        throw new Leasehold.ConfigurationException(where + " refused " + what + ": " + e.getCause().getMessage(), e);
      }
      throw new Leasehold.StoreUnreachableException(where + " failed " + what + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Leasehold.StoreUnreachableException("interrupted during " + what, e);
    }
  }
}
