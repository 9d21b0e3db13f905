package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spreading across real JVMs (PROTOCOL.md §11.7), in the suite (about 10 s): three {@link SpreadMember} JVMs with 300 shard elections each spread to 100 each; one is
 * SIGKILLed, and its 100 are taken up by expiry and spread to 150/150; it starts again and the
 * fleet goes back to 100 each with about 100 moves. Measured from etcd's own watch: the holder of
 * every key, and the moves (puts that keep a key's create revision).
 */
class EtcdSessionSpreadJvmIT {
  private static final Logger log = LoggerFactory.getLogger(EtcdSessionSpreadJvmIT.class);
  private static final int N = 300;
  private static final int TTL_SECONDS = 2;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final Map<String, String> holders = new HashMap<>();
  private int moves;

  private synchronized void seen(WatchEvent e) {
    KeyValue kv = e.getKeyValue();
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    if (e.getEventType() == WatchEvent.EventType.PUT) {
      moves += kv.getCreateRevision() != kv.getModRevision() ? 1 : 0;
      holders.put(key, kv.getValue().toString(StandardCharsets.UTF_8));
    } else {
      holders.remove(key);
    }
  }

  private synchronized Map<String, Integer> counts() {
    Map<String, Integer> n = new TreeMap<>();
    holders.values().forEach(h -> n.merge(h, 1, Integer::sum));
    return n;
  }

  private synchronized int moves() {
    return moves;
  }

  private static Process member(String id, String prefix) throws IOException {
    Path log = Path.of("target", "spread-jvm-it", id + ".log");
    log.toAbsolutePath().getParent().toFile().mkdirs();
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=logback.xml",
            "-cp", System.getProperty("java.class.path"), SpreadMember.class.getName(),
            "--endpoints=" + ETCD.cluster().clientEndpointsCsv(), "--prefix=" + prefix, "--id=" + id,
            "--count=" + N, "--ttl-seconds=" + TTL_SECONDS)
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  /** awaitEven waits until the {@code ids} hold all N elections, {@code each} apiece. */
  private long awaitEven(List<String> ids, int each) {
    long t0 = System.nanoTime();
    Map<String, Integer> want = new TreeMap<>();
    ids.forEach(id -> want.put(id, each));
    await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
        assertTrue(counts().equals(want), () -> "held " + counts() + ", want " + want));
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  @Test
  void threeJvmsSpreadAndRespreadAfterASigkillAndARejoin() throws Exception {
    String prefix = "/it/spread-jvm/" + UUID.randomUUID() + "/";
    List<Process> procs = new ArrayList<>();
    try (Client c = ETCD.cluster().clientBuilder().build();
        Watch.Watcher w = c.getWatchClient().watch(ByteSequence.from(prefix + "shard-", StandardCharsets.UTF_8),
            WatchOption.builder().isPrefix(true).build(), r -> r.getEvents().forEach(this::seen))) {
      for (String id : List.of("a", "b", "c")) {
        procs.add(member(id, prefix));
      }
      long cold = awaitEven(List.of("a", "b", "c"), N / 3);
      int m0 = moves();
      log.info("spread: 3 JVMs x {} elections at {} each {} ms after the launch, {} moves", N, N / 3, cold, m0);

      procs.get(2).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      long killed = awaitEven(List.of("a", "b"), N / 2);
      int m1 = moves();
      log.info("spread: SIGKILL of c: {} each {} ms later (TTL {} s), {} moves", N / 2, killed, TTL_SECONDS, m1 - m0);

      procs.set(2, member("c", prefix));
      long rejoined = awaitEven(List.of("a", "b", "c"), N / 3);
      int m2 = moves();
      log.info("spread: c again: {} each {} ms after its launch, {} moves (fewest {})", N / 3, rejoined, m2 - m1, N / 3);
      assertTrue(m2 - m1 <= N / 3 * 105 / 100, "moves on the rejoin " + (m2 - m1) + " within 5 % of " + N / 3);
    } finally {
      procs.forEach(Process::destroyForcibly);
    }
  }
}
