package dev.leasehold.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.it.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The starter in two real Boot JVMs on real etcd: a {@code @Scheduled @LeaderOnly(fenced = true)}
 * job runs on the leader only; after SIGKILL to the leader's JVM it moves to the other within
 * TTL + 1 s; never both at once (run intervals on the host's monotonic clock), and etcd accepts
 * no write of a replaced term (the job's writes are guarded by the fencing token). The health
 * endpoint over HTTP names the leader; a SIGTERM'd leader resigns (its key is gone at once).
 */
class SpringTwoJvmFailoverIT {
  private static final Logger log = LoggerFactory.getLogger(SpringTwoJvmFailoverIT.class);
  private static final int TTL_SECONDS = 2;

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theJobRunsOnTheLeaderOnlyAndMovesWithinTtlPlusOneSecondWhenItsJvmIsKilled() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String electionKey = "/it/spring/" + run + "/leader";
    String prefix = "/it/spring/" + run + "/writes/";
    Path logs = Path.of("target", "spring-two-jvm-it", run);
    try (BootProcess a = start("a", electionKey, prefix, logs);
        BootProcess b = start("b", electionKey, prefix, logs);
        Client etcd = ETCD.cluster().clientBuilder().build()) {
      int portA = port(a);
      int portB = port(b);
      BootProcess leader = awaitFirstRun(a, b);
      BootProcess follower = leader == a ? b : a;
      int leaderPort = leader == a ? portA : portB;
      int followerPort = leader == a ? portB : portA;
      // A few runs on the leader; the follower's trigger fires too, and is skipped.
      leader.awaitLine(l -> l.startsWith("END ") && l.split(" ")[3].equals("5"), Duration.ofSeconds(10));
      assertThat(runs(follower)).as("runs on the follower").isEmpty();

      String leaderHealth = get(leaderPort, "/actuator/health/leasehold");
      // The follower's first read may come after the leader's first runs (its JVM started later, its
      // client's first call is slow under load): wait until it has seen the leader, then check it all.
      String leaderIdField = "\"leaderId\":\"" + leader.id() + "\"";
      String followerHealth = await().atMost(Duration.ofSeconds(10))
          .until(() -> get(followerPort, "/actuator/health/leasehold"), h -> h.contains(leaderIdField));
      log.info("health of the leader {}: {}", leader.id(), leaderHealth);
      log.info("health of the follower {}: {}", follower.id(), followerHealth);
      assertThat(leaderHealth).contains("\"status\":\"UP\"", "\"state\":\"MASTER\"",
          "\"leaderId\":\"" + leader.id() + "\"", "\"guarantee\":\"DISTRIBUTED\"");
      assertThat(followerHealth).contains("\"status\":\"UP\"", "\"state\":\"FOLLOWER\"",
          "\"leaderId\":\"" + leader.id() + "\"");
      assertThat(get(followerPort, "/actuator/info")).contains("\"leasehold\"", "\"activeBackend\":\"etcd\"");

      long killedAt = System.nanoTime();
      leader.kill();
      String first = follower.awaitLine(l -> l.startsWith("START "), Duration.ofSeconds(TTL_SECONDS + 10));
      double moveSeconds = (Long.parseLong(first.split(" ")[4]) - killedAt) / 1e9;
      log.info("SIGKILL to {} -> first job run on {}: {} ms (TTL {} s)", leader.id(), follower.id(),
          String.format("%.1f", moveSeconds * 1000), TTL_SECONDS);
      follower.awaitLine(l -> l.startsWith("END ") && l.split(" ")[3].equals("3"), Duration.ofSeconds(10));

      String newHealth = get(followerPort, "/actuator/health/leasehold");
      log.info("health of {} after the kill: {}", follower.id(), newHealth);
      assertThat(newHealth).contains("\"state\":\"MASTER\"", "\"leaderId\":\"" + follower.id() + "\"");

      // Graceful shutdown resigns: the lease is revoked and the key goes with it, no TTL wait.
      assertThat(follower.terminate()).isEqualTo(143);
      assertThat(etcd.getKVClient().get(bytes(electionKey)).get(5, TimeUnit.SECONDS).getCount())
          .as("election key after SIGTERM").isZero();

      assertNoOverlap(runs(leader), killedAt, runs(follower));
      assertNoStaleWrite(etcd, prefix, leader.id(), follower.id());
      assertThat(moveSeconds).as("job move time, s").isLessThan(TTL_SECONDS + 1.0);
    }
  }

  private static BootProcess start(String id, String key, String prefix, Path logs) throws Exception {
    return BootProcess.start(id, logs, List.of(
        "--leasehold.etcd.endpoints=" + ETCD.cluster().clientEndpointsCsv(),
        "--leasehold.key=" + key,
        "--leasehold.candidate-id=" + id,
        "--leasehold.ttl=" + TTL_SECONDS + "s",
        "--leasehold.poll-interval=500ms",
        "--job.prefix=" + prefix,
        "--server.port=0",
        "--server.address=127.0.0.1",
        "--management.endpoints.web.exposure.include=health,info",
        "--management.endpoint.health.show-details=always",
        "--spring.main.banner-mode=off"));
  }

  private static int port(BootProcess p) throws InterruptedException {
    return Integer.parseInt(p.awaitLine(l -> l.startsWith("PORT "), Duration.ofSeconds(60)).substring(5));
  }

  private static BootProcess awaitFirstRun(BootProcess a, BootProcess b) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < end) {
      if (!runs(a).isEmpty()) {
        return a;
      }
      if (!runs(b).isEmpty()) {
        return b;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no job run on either JVM within 20 s");
  }

  /** Run is one job run as its JVM reported it; end is -1 for a run cut off by the kill. */
  record Run(String id, long token, long seq, long start, long end, boolean accepted) {}

  private static List<Run> runs(BootProcess p) {
    TreeMap<Long, Run> bySeq = new TreeMap<>();
    for (String l : p.lines()) {
      String[] f = l.split(" ");
      if (f[0].equals("START")) {
        bySeq.putIfAbsent(Long.parseLong(f[3]),
            new Run(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), -1, false));
      } else if (f[0].equals("END")) {
        bySeq.put(Long.parseLong(f[3]), new Run(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]),
            Long.parseLong(f[4]), Long.parseLong(f[5]), Boolean.parseBoolean(f[6])));
      }
    }
    return new ArrayList<>(bySeq.values());
  }

  private static void assertNoOverlap(List<Run> killed, long killedAt, List<Run> successor) {
    assertThat(killed).isNotEmpty();
    assertThat(successor).isNotEmpty();
    long killedLast = killed.stream().mapToLong(r -> r.end() < 0 ? killedAt : r.end()).max().orElseThrow();
    long successorFirst = successor.stream().mapToLong(Run::start).min().orElseThrow();
    log.info("{} runs on the killed leader (token {}), {} on its successor (token {}); gap {} ms",
        killed.size(), killed.get(0).token(), successor.size(), successor.get(0).token(),
        String.format("%.1f", (successorFirst - killedLast) / 1e6));
    assertThat(successorFirst).as("successor's first run starts after the killed leader's last ended")
        .isGreaterThan(killedLast);
    assertThat(killed).allMatch(r -> r.end() < 0 || r.accepted(), "every completed run of the first term written");
    assertThat(successor).allMatch(r -> r.end() < 0 || r.accepted(), "every completed run of the second term written");
  }

  /** In etcd's own order, accepted writes never go back to an older term, and one term is one JVM. */
  private static void assertNoStaleWrite(Client etcd, String prefix, String first, String second) throws Exception {
    List<KeyValue> writes = etcd.getKVClient()
        .get(bytes(prefix), GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS).getKvs();
    List<KeyValue> byRevision = new ArrayList<>(writes);
    byRevision.sort((x, y) -> Long.compare(x.getModRevision(), y.getModRevision()));
    long lastToken = 0;
    String lastWriter = null;
    int handovers = 0;
    for (KeyValue kv : byRevision) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      long token = Long.parseLong(key.substring(prefix.length(), key.indexOf('/', prefix.length())));
      String writer = kv.getValue().toString(StandardCharsets.UTF_8);
      assertThat(token).as("token of %s after token %d", key, lastToken).isGreaterThanOrEqualTo(lastToken);
      if (lastWriter != null && !writer.equals(lastWriter)) {
        handovers++;
        assertThat(token).as("a new writer comes with a new term").isGreaterThan(lastToken);
      }
      lastToken = token;
      lastWriter = writer;
    }
    log.info("{} fenced writes accepted by etcd, {} handover(s), none from a replaced term", writes.size(), handovers);
    assertThat(handovers).isEqualTo(1);
    assertThat(byRevision.get(0).getValue().toString(StandardCharsets.UTF_8)).isEqualTo(first);
    assertThat(lastWriter).isEqualTo(second);
  }

  private String get(int port, String path) throws Exception {
    HttpResponse<String> r = http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
