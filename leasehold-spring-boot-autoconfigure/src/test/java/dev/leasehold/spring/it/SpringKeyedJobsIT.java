package dev.leasehold.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.it.EtcdClusterExtension;
import dev.leasehold.spring.keyed.KeyedJobsApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code @LeaderOnly(key)} in two real Boot JVMs on real etcd: two keyed jobs, each its own
 * election on one shared spreading session, end one on each JVM (PROTOCOL.md §11.7), each run
 * fenced by its own job's term; when one JVM is killed, the other runs both; when one is not
 * ready (Boot's readiness state, followed by {@code leasehold.health-check.readiness}), the
 * other runs both until it is ready again.
 */
class SpringKeyedJobsIT {
  private static final Logger log = LoggerFactory.getLogger(SpringKeyedJobsIT.class);
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  @Test
  void twoKeyedJobsSpreadOneOnEachJvmAndBothGoToTheSurvivor() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    Path logs = Path.of("target", "spring-keyed-it", run);
    try (BootProcess a = start("a", run, logs); BootProcess b = start("b", run, logs)) {
      // Spread: each JVM's latest runs are of one key, and the two keys differ.
      long started = System.nanoTime();
      Map<String, String> owner = awaitSpread(a, b);
      log.info("keyed jobs spread after {} ms: {}", (System.nanoTime() - started) / 1_000_000, owner);
      assertThat(owner.get("a")).isNotEqualTo(owner.get("b"));
      assertThat(lastRuns(a, 20)).allMatch(r -> r[2].equals(owner.get("a")));
      assertThat(lastRuns(b, 20)).allMatch(r -> r[2].equals(owner.get("b")));
      for (String[] r : lastRuns(a, 5)) {
        assertThat(r[4]).isEqualTo("/it/keyed/" + run + "/jobs/" + r[2]);
      }

      int seen = a.lines().size();
      long killed = System.nanoTime();
      b.kill();
      await("a runs b's job within " + WAIT).atMost(WAIT).pollInterval(Duration.ofMillis(20))
          .until(() -> a.lines().subList(seen, a.lines().size()).stream()
              .anyMatch(l -> l.startsWith("RUN a " + owner.get("b") + " ")));
      log.info("after SIGKILL to b, a runs both keyed jobs {} ms later (TTL 2 s)", (System.nanoTime() - killed) / 1_000_000);
    }
  }

  @Test
  void theKeyedJobsOfAnInstanceThatIsNotReadyMoveToTheReadyOne() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    Path logs = Path.of("target", "spring-keyed-it", run);
    java.nio.file.Files.createDirectories(logs);
    Path unready = logs.resolve("b-unready").toAbsolutePath();
    List<String> health = List.of("--leasehold.health-check.readiness=true",
        "--leasehold.health-check-interval=100ms", "--leasehold.health-check-threshold=2");
    try (BootProcess a = start("a", run, logs, health);
        BootProcess b = start("b", run, logs, concat(health, "--keyed.unready-file=" + unready))) {
      Map<String, String> owner = awaitSpread(a, b);

      // b stops accepting traffic: its session leaves the fleet and hands its job to a.
      int seen = a.lines().size();
      long refused = System.nanoTime();
      java.nio.file.Files.createFile(unready);
      await("a runs b's job within " + WAIT).atMost(WAIT).pollInterval(Duration.ofMillis(20))
          .until(() -> a.lines().subList(seen, a.lines().size()).stream()
              .anyMatch(l -> l.startsWith("RUN a " + owner.get("b") + " ")));
      log.info("b not ready: a runs both keyed jobs {} ms later", (System.nanoTime() - refused) / 1_000_000);
      Thread.sleep(300); // b's last lines from before it stepped down
      int bSeen = b.lines().size();
      Thread.sleep(500);
      assertThat(b.lines().subList(bSeen, b.lines().size())).noneMatch(l -> l.startsWith("RUN "));

      // Ready again: the jobs spread over both again.
      java.nio.file.Files.delete(unready);
      int again = b.lines().size();
      await("b runs a keyed job again within " + WAIT).atMost(WAIT).pollInterval(Duration.ofMillis(20))
          .until(() -> b.lines().subList(again, b.lines().size()).stream().anyMatch(l -> l.startsWith("RUN b ")));
      assertThat(awaitSpread(a, b)).isNotNull();
    }
  }

  private static List<String> concat(List<String> a, String b) {
    List<String> all = new java.util.ArrayList<>(a);
    all.add(b);
    return all;
  }

  private static BootProcess start(String id, String run, Path logs) throws Exception {
    return start(id, run, logs, List.of());
  }

  private static BootProcess start(String id, String run, Path logs, List<String> more) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of(
        "--leasehold.etcd.endpoints=" + ETCD.cluster().clientEndpointsCsv(),
        "--leasehold.key=/it/keyed/" + run,
        "--leasehold.candidate-id=" + id,
        "--leasehold.ttl=2s",
        "--spring.main.web-application-type=none",
        "--spring.main.banner-mode=off"));
    args.addAll(more);
    return BootProcess.start(KeyedJobsApplication.class, id, logs, args);
  }

  /** lastRuns is the last {@code n} runs a JVM reported, as "RUN id key token electionKey" fields. */
  private static List<String[]> lastRuns(BootProcess p, int n) {
    List<String[]> runs = p.lines().stream().filter(l -> l.startsWith("RUN ")).map(l -> l.split(" ")).toList();
    return runs.subList(Math.max(0, runs.size() - n), runs.size());
  }

  private static Map<String, String> awaitSpread(BootProcess a, BootProcess b) {
    try {
      return await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
          .until(() -> spread(a, b), Objects::nonNull);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the keyed jobs did not spread one on each JVM within " + WAIT + ": a ran "
          + lastRuns(a, 10).stream().map(r -> r[2]).toList() + ", b ran "
          + lastRuns(b, 10).stream().map(r -> r[2]).toList());
    }
  }

  /**
   * spread is each JVM's one key when the last 20 runs of each are of one key and the two keys
   * differ; null otherwise.
   */
  private static Map<String, String> spread(BootProcess a, BootProcess b) {
    Map<String, String> owner = new HashMap<>();
    for (BootProcess p : List.of(a, b)) {
      List<String[]> last = lastRuns(p, 20);
      if (last.size() == 20 && last.stream().map(r -> r[2]).distinct().count() == 1) {
        owner.put(p.id(), last.get(0)[2]);
      }
    }
    return owner.size() == 2 && !owner.get("a").equals(owner.get("b")) ? owner : null;
  }
}
