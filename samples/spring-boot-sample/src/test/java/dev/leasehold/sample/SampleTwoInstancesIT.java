package dev.leasehold.sample;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.EtcdClusterExtension;
import dev.leasehold.it.ProcessLines;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample as run.sh runs it: its repackaged jar in two JVMs on a real etcd. Exactly one of
 * them runs the job, and each says who leads with the fencing token; after SIGKILL to the
 * leader's JVM the other takes the job over, with a newer token, and its fenced writes reach
 * etcd through the starter's jetcd Client.
 */
class SampleTwoInstancesIT {
  private static final Logger log = LoggerFactory.getLogger(SampleTwoInstancesIT.class);
  private static final Pattern LEADS = Pattern.compile("(\\S+) leads now \\(fencing token (\\d+)\\)");
  private static final Pattern FOLLOWS =
      Pattern.compile("(\\S+) follows: (\\S+) leads \\(fencing token (\\d+)\\)");
  private static final Pattern DISPATCHED = Pattern.compile(
      "batch (\\d+) dispatched by (\\S+) \\(fencing token (\\d+), -?\\d+ ms left\\): etcd (accepted|refused) it");
  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration MOVE = Duration.ofSeconds(15);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  @Test
  void exactlyOneInstanceRunsTheJobAndTheOtherTakesItOverWhenTheLeaderIsKilled() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String lastBatch = "/it/sample/" + run + "/last-batch";
    Path logs = Path.of("target", "sample-it", run);
    try (Instance a = Instance.start("a", run, lastBatch, logs);
        Instance b = Instance.start("b", run, lastBatch, logs);
        Client etcd = ETCD.cluster().clientBuilder().build()) {
      // The first instance to run the job leads; the other's scheduler has fired every second
      // since its start, and every run there was skipped.
      Instance leader = await().atMost(START).until(
          () -> a.dispatched(1) ? a : b.dispatched(1) ? b : null, x -> x != null);
      Instance follower = leader == a ? b : a;
      long token = Long.parseLong(leader.awaitMatch(LEADS, m -> m.group(1).equals(leader.id), MOVE).group(2));
      // The follower names the leader and its token, and has not run the job once.
      follower.awaitMatch(FOLLOWS, m -> m.group(2).equals(leader.id) && Long.parseLong(m.group(3)) == token, MOVE);
      assertEquals(List.of(), follower.matches(DISPATCHED), "job runs on the follower");
      assertTrue(leader.matches(DISPATCHED).stream().allMatch(
          m -> m.group(2).equals(leader.id) && m.group(4).equals("accepted") && Long.parseLong(m.group(3)) == token),
          () -> "the leader's runs: " + leader.lines());

      long killed = System.nanoTime();
      leader.kill();
      long newToken = Long.parseLong(follower.awaitMatch(LEADS, m -> m.group(1).equals(follower.id), MOVE).group(2));
      Matcher first = follower.awaitMatch(DISPATCHED, m -> m.group(4).equals("accepted"), MOVE);
      log.info("{} led with token {}; SIGKILLed; {} leads with token {}, its first batch accepted {} ms after the kill",
          leader.id, token, follower.id, newToken, (System.nanoTime() - killed) / 1_000_000);
      assertTrue(newToken > token, "the new term's token " + newToken + " is above " + token);
      assertEquals(follower.id, first.group(2));
      String written = etcd.getKVClient().get(ByteSequence.from(lastBatch, StandardCharsets.UTF_8))
          .get(5, TimeUnit.SECONDS).getKvs().get(0).getValue().toString(StandardCharsets.UTF_8);
      assertTrue(written.startsWith(follower.id + " batch "), "last batch in etcd: " + written);
    }
  }

  /** Instance is one JVM of the sample's jar, its output kept in memory and in a log file. */
  private static final class Instance implements AutoCloseable {
    final String id;
    private final Process process;
    private final ProcessLines lines;

    private Instance(String id, Process process, Path logFile) throws IOException {
      this.id = id;
      this.process = process;
      this.lines = ProcessLines.follow(process, logFile, "sample-out-" + id, line -> line);
    }

    static Instance start(String id, String run, String lastBatch, Path logs) throws IOException {
      Path jar;
      try (Stream<Path> s = Files.list(Path.of("target"))) {
        jar = s.filter(p -> p.getFileName().toString().matches("leasehold-spring-boot-sample-.*\\.jar"))
            .findFirst().orElseThrow(() -> new IllegalStateException("no sample jar in target/: run mvn verify"));
      }
      Files.createDirectories(logs);
      Process p = new ProcessBuilder(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
          "--leasehold.etcd.endpoints=" + ETCD.cluster().clientEndpointsCsv(),
          "--leasehold.key=/it/sample/" + run + "/dispatcher",
          "--leasehold.candidate-id=" + id,
          "--leasehold.ttl=2s",
          "--sample.last-batch-key=" + lastBatch,
          "--server.port=0",
          "--server.address=127.0.0.1",
          "--spring.main.banner-mode=off")
          .redirectErrorStream(true).start();
      return new Instance(id, p, logs.resolve(id + ".log"));
    }

    List<String> lines() {
      return lines.snapshot();
    }

    /** matches are the pattern's matches in the lines so far, in order. */
    List<Matcher> matches(Pattern pattern) {
      List<Matcher> out = new ArrayList<>();
      for (String l : lines()) {
        Matcher m = pattern.matcher(l);
        if (m.find()) {
          out.add(m);
        }
      }
      return out;
    }

    boolean dispatched(int batches) {
      if (!process.isAlive()) {
        throw new IllegalStateException(id + " exited with " + process.exitValue() + ": " + lines());
      }
      return matches(DISPATCHED).size() >= batches;
    }

    /** awaitMatch is the first match of {@code pattern} that {@code test} accepts, within {@code within}. */
    Matcher awaitMatch(Pattern pattern, java.util.function.Predicate<Matcher> test, Duration within) {
      return await().atMost(within).until(
          () -> matches(pattern).stream().filter(test).findFirst().orElse(null), m -> m != null);
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }
}
