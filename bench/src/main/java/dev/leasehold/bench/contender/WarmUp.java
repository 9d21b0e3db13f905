package dev.leasehold.bench.contender;

import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * WarmUp runs a cold start of one contender kind on a key of its own, on the shared client,
 * before a measured cold start: a fresh JVM's first calls of a kind load and compile the classes
 * of that kind's path (jetcd's transaction, lease and election stubs, the library's own), which
 * on 2 cores costs most of a second whatever elects on it. Each contender warms its own path, so
 * the measured cold start compares protocols, not class loading or compilation.
 *
 * <p>The warm-up starts as many candidates as the measured start. A smaller one loads the classes
 * but leaves their methods to be compiled during the measured start: with 20 candidates, C2
 * compiled for 1.2 to 1.4 s of CPU in the 1,000-elector cold start, on the same 2 cores as etcd
 * (bench/HISTORY.md). Stateless.
 */
public final class WarmUp {
  private WarmUp() {}

  /**
   * run starts {@code candidates} candidates of {@code kind} on {@code key}, each as soon as the
   * one before it has started, waits until one leads (at most {@code timeout}), closes them all,
   * and returns how long that took in nanoseconds; the measured run then uses another key.
   */
  public static long run(Kind kind, Client client, String[] endpoints, String key, Duration ttl, int candidates,
      Duration timeout) throws InterruptedException {
    long t0 = System.nanoTime();
    CountDownLatch elected = new CountDownLatch(1);
    Contender.Sink sink = new Contender.Sink() {
      @Override
      public void elected(long nanoTime, long sourceNanoTime) {
        elected.countDown();
      }

      @Override
      public void lost(long nanoTime, String cause) {}
    };
    List<Contender> warm = new ArrayList<>();
    for (int i = 0; i < candidates; i++) {
      warm.add(kind.create(client, endpoints, key, "warmup-" + i, ttl, sink));
    }
    try {
      warm.forEach(Contender::start);
      if (!elected.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException("the warm-up of " + kind + " elected nobody within " + timeout);
      }
      return System.nanoTime() - t0;
    } finally {
      warm.parallelStream().forEach(Contender::close);
    }
  }
}
