package dev.leasehold.bench.contender;

import dev.leasehold.etcd.EtcdCallPolicy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.ClientInterceptor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * SharedClient builds the one jetcd client that many candidates in a bench JVM share, and
 * connects it before a scenario's clock starts.
 *
 * <p>Stateless and thread-safe.
 */
public final class SharedClient {
  private SharedClient() {}

  /**
   * build makes a client on {@code endpoints} with the given interceptors and a small fixed
   * executor, as docs/configuration.md advises (the {@code client(c)} row of the etcd builder's
   * table) for a client many electors share: jetcd's default cached
   * pool starts a thread per call in flight (a thousand at a cold start).
   */
  public static Client build(String[] endpoints, ClientInterceptor... interceptors) {
    // The executor carries the caller's gRPC Context, as an elector's own client's does, so the
    // cold campaign's calls keep their own deadline (EtcdCallPolicy.contextExecutor); jetcd's
    // own calls (Election's) carry none and are unchanged by it.
    ClientBuilder b = Client.builder().endpoints(endpoints).executorService(
        EtcdCallPolicy.contextExecutor(Executors.newFixedThreadPool(2, r -> {
          Thread t = new Thread(r, "shared-etcd-client");
          t.setDaemon(true);
          return t;
        })));
    if (interceptors.length > 0) {
      b.interceptors(List.of(interceptors));
    }
    return b.build();
  }

  /**
   * connect reads {@code key} once, so the client is connected (and jetcd's, gRPC's and Netty's
   * classes loaded) before the clock starts: a cold JVM's first call costs most of a second,
   * whatever elects on it. It returns how long that took, in nanoseconds.
   */
  public static long connect(Client client, String key) throws Exception {
    long t0 = System.nanoTime();
    client.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
    return System.nanoTime() - t0;
  }
}
