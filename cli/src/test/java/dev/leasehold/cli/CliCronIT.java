package dev.leasehold.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.EtcdClusterExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code leasehold run --skip-if-led --hold-at-least} as a timer on several hosts starts it: per
 * firing, {@value #HOSTS} processes started at random 0-500 ms offsets (real JVMs through
 * bin/leasehold, on real etcd) run the job exactly once, never two at once, and every skipped
 * process exits 0.
 *
 * <p>The next firing comes once every process of the last one has exited, which is when the
 * holder released the key: a timer's interval only has to be longer than the hold. The hold only
 * has to cover the spread of the arrivals: 500 ms of offsets and the JVMs' starts, which a
 * loaded machine spreads further (the latest skip is logged: 0.5 s after its firing's run began
 * on a quiet machine, 1.5 s at load 2 on two cores, and more than 3 s once in the full suite,
 * where the model checker and other modules' tests run beside it: a hold of 3 s let a late
 * process run the job a second time). The default is 5 s, as a crontab's 60 s is far above its
 * hosts' spread. A firing takes the hold and a JVM's start and stop (about 7 s), so the default
 * suite runs 4 firings (about 30 s); {@code -Dleasehold.cron.firings=20} runs the full schedule
 * (about 2.5 min). {@code -Dleasehold.cron.hold=none} leaves {@code --hold-at-least} out: then a
 * late process runs the job a second time, which shows the test can fail.
 */
class CliCronIT {
  private static final Logger log = LoggerFactory.getLogger(CliCronIT.class);
  private static final int HOSTS = 3;
  private static final int FIRINGS = Integer.getInteger("leasehold.cron.firings", 4);
  private static final String HOLD = System.getProperty("leasehold.cron.hold", "5s");
  private static final Pattern RUN = Pattern.compile("(\\d+) (\\S+) (\\d+) (\\d+)");
  private static final Pattern SKIPPED = Pattern.compile("^(\\S+) INFO  leasehold: skipped: (\\S+) leads$");

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);

  private static final ScheduledExecutorService STARTER = Executors.newSingleThreadScheduledExecutor();

  private final Path dir = Path.of("target", "cli-it", "cron-" + UUID.randomUUID().toString().substring(0, 8))
      .toAbsolutePath();
  private final String key = "/it/cli/cron/" + UUID.randomUUID();

  @AfterAll
  static void stopStarter() {
    STARTER.shutdownNow();
  }

  // The job takes 200 ms, so that two runs at once would overlap; mkdir is atomic, so a second
  // run while one is in it is recorded as an overlap whatever the timestamps say.
  private String job(int firing) {
    return ("t0=$(date +%s%N); mkdir DIR/running 2>/dev/null || echo F >> DIR/overlaps; sleep 0.2;"
        + " echo F $LEASEHOLD_LEADER_ID $t0 $(date +%s%N) >> DIR/runs; rmdir DIR/running")
        .replace("F", Integer.toString(firing)).replace("DIR", dir.toString());
  }

  private LeaseholdProcess start(int firing, int host) throws Exception {
    List<String> args = new ArrayList<>(List.of("run", "--endpoints", ETCD.cluster().clientEndpointsCsv(),
        "--key", key, "--ttl", "2", "--id", "f" + firing + "h" + host, "--skip-if-led"));
    if (!HOLD.equals("none")) {
      args.addAll(List.of("--hold-at-least", HOLD));
    }
    args.addAll(List.of("--", "sh", "-c", job(firing)));
    return LeaseholdProcess.start("f" + firing + "h" + host, dir, args.toArray(String[]::new));
  }

  @Test
  void everyFiringRunsTheJobOnceAndTheSkippedExitZero() throws Exception {
    Random random = new Random();
    List<LeaseholdProcess> all = new CopyOnWriteArrayList<>();
    long began = System.nanoTime();
    for (int f = 0; f < FIRINGS; f++) {
      List<LeaseholdProcess> firing = new CopyOnWriteArrayList<>();
      for (int h = 0; h < HOSTS; h++) {
        int firingNo = f;
        int host = h;
        STARTER.schedule(() -> firing.add(start(firingNo, host)), random.nextInt(501), TimeUnit.MILLISECONDS);
      }
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
          .until(() -> firing.size() == HOSTS && firing.stream().noneMatch(LeaseholdProcess::isAlive));
      all.addAll(firing);
    }
    double seconds = (System.nanoTime() - began) / 1e9;

    Map<Integer, List<String>> runs = new TreeMap<>();
    Map<Integer, Long> runStart = new TreeMap<>();
    List<long[]> intervals = new ArrayList<>();
    for (String line : lines("runs")) {
      Matcher m = RUN.matcher(line);
      assertTrue(m.matches(), line);
      runs.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(m.group(2));
      runStart.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(3)) / 1_000_000);
      intervals.add(new long[] {Long.parseLong(m.group(3)), Long.parseLong(m.group(4))});
    }
    intervals.sort((a, b) -> Long.compare(a[0], b[0]));
    for (int i = 1; i < intervals.size(); i++) {
      assertTrue(intervals.get(i)[0] >= intervals.get(i - 1)[1], "two runs at once: " + lines("runs"));
    }
    assertEquals(List.of(), lines("overlaps"), "firings with two runs at once");
    int skipped = 0;
    long latestSkip = Long.MIN_VALUE; // after the start of its firing's run: what the hold must cover
    for (LeaseholdProcess p : all) {
      assertEquals(0, p.exitCode(Duration.ofSeconds(10)), p.log());
      // A skipped run says so in its one INFO line; warnings stay (a store that answered late on a
      // loaded machine warns first), so every other line must be a WARN, or the notice of a term
      // won too close to its deadline, whose child waits for a first renewal (docs/cli.md): on a
      // loaded machine such a term may end before it, no child started, and the run then skips.
      List<String> said = p.log().strip().lines().toList();
      Matcher m = SKIPPED.matcher(said.isEmpty() ? "" : said.get(said.size() - 1));
      if (m.matches()) {
        assertTrue(said.subList(0, said.size() - 1).stream().allMatch(l -> l.contains(" WARN ")
                || l.contains(" INFO ") && l.contains("the child starts after the first renewal")),
            "a skipped run prints one line besides its warnings: " + p.log());
        skipped++;
        int firing = Integer.parseInt(p.name().substring(1, p.name().indexOf('h')));
        if (runStart.containsKey(firing)) {
          latestSkip = Math.max(latestSkip, java.time.Instant.parse(m.group(1)).toEpochMilli() - runStart.get(firing));
        }
      } else {
        assertTrue(p.log().contains("leasehold: leader with fencing token"), "neither ran nor skipped: " + p.log());
      }
    }
    log.info("measured: {} firings of {} processes (offsets 0-500 ms, --hold-at-least {}) in {} s: {} runs, {} skipped,"
        + " the latest skip {} ms after its firing's run began", FIRINGS, HOSTS, HOLD, String.format("%.1f", seconds),
        intervals.size(), skipped, latestSkip);
    for (int f = 0; f < FIRINGS; f++) {
      assertEquals(1, runs.getOrDefault(f, List.of()).size(), "runs of firing " + f + ": " + runs
          + " (firing, id, start and end in ns: " + lines("runs") + ")");
    }
    assertEquals(FIRINGS * (HOSTS - 1), skipped);
  }

  private List<String> lines(String file) throws java.io.IOException {
    Path p = dir.resolve(file);
    return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.UTF_8) : List.of();
  }
}
