package dev.leasehold.it.chaos;

import dev.leasehold.it.SpreadChaosMember;
import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Interval;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * SpreadChaosRunner runs one spreading chaos run (the member storm, CHAOS.md): a 3-member etcd
 * cluster ({@link EtcdStore}), a fleet of spreading member JVMs ({@link SpreadFleet}) each leading
 * its share of the shard elections and writing each led shard's counter fenced by that term, and
 * a seeded schedule of {@link MemberStorm}s, each followed by a wait for the fleet to settle.
 * Then it reads etcd's own record of every shard key and counter and checks each shard with
 * {@link HistoryChecker} (overlap, stale writes, the exact counter, liveness, spurious losses) and
 * the fleet with {@link SpreadBalance} (skew ≤ 1 in time after each storm).
 *
 * <p>Everything it starts is ended before {@link #run} returns or throws, and by a shutdown hook
 * if this JVM dies first. Not thread-safe; one run per instance.
 */
public final class SpreadChaosRunner {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final SpreadChaosConfig config;
  private final Consumer<String> out;
  private RunLog log;

  /**
   * Report is a finished run.
   *
   * @param config the settings
   * @param result the checker's verdict over every shard, its numbers summed (one storm counted once)
   * @param balance each storm's balance
   * @param violations every violation: each shard's, named by shard, and the skew misses
   * @param historyFile the raw log of every line and harness note
   * @param reportLines one line per storm
   * @param actions how many of the storms' actions were of each sort: {@code kill}, {@code close},
   *     {@code new} (a join in a new slot), {@code back} (a join of a returning slot)
   * @param wallNanos the whole run's wall time, the store's start included
   * @param aborted why the schedule stopped early, or null
   */
  public record Report(
      SpreadChaosConfig config,
      HistoryChecker.Result result,
      List<SpreadBalance.Outcome> balance,
      List<ChaosViolation> violations,
      Path historyFile,
      List<String> reportLines,
      Map<String, Integer> actions,
      long wallNanos,
      String aborted) {

    /** ok is true when the schedule ran to its end and nothing was violated. */
    public boolean ok() {
      return aborted == null && violations.isEmpty();
    }

    /** storms is how many storms ran. */
    public int storms() {
      return balance.size();
    }

    /** summary is the seed and settings line, the checker's table over every shard, and the storms' table. */
    public String summary() {
      ChaosConfig b = config.base();
      long longest = balance.stream().mapToLong(SpreadBalance.Outcome::toBalanceNanos).max().orElse(0);
      long misses = violations.stream().filter(v -> v.kind() == ChaosViolation.Kind.SKEW).count();
      int moves = balance.stream().mapToInt(SpreadBalance.Outcome::moves).sum();
      return "spread chaos run, seed " + b.seed() + ", " + storms() + " storms, wall time "
          + String.format(Locale.ROOT, "%.1f s", wallNanos / 1e9) + ", " + config.shards() + " shards, "
          + config.members() + " members (" + config.minMembers() + " to " + config.maxMembers()
          + " after a storm), TTL " + b.ttlSeconds() + " s, etcd election timeout " + b.electionTimeoutMillis()
          + " ms, pre-vote " + b.preVote() + ", rpc timeout " + b.rpcTimeoutMillis() + " ms, think "
          + b.thinkMillis() + " ms\n" + result.table()
          + "\n| storms | left by SIGKILL | left by close | joined new | joined returning | longest settle to skew <= 1"
          + " | skew misses (bound " + HistoryChecker.ms(2L * b.ttlSeconds() * 1_000_000_000L) + ") | moves |\n"
          + "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
          + "| " + storms() + " | " + actions.getOrDefault("kill", 0) + " | " + actions.getOrDefault("close", 0)
          + " | " + actions.getOrDefault("new", 0) + " | " + actions.getOrDefault("back", 0) + " | "
          + HistoryChecker.ms(longest) + " | " + misses + " | " + moves + " |\n";
    }
  }

  /** SpreadChaosRunner prepares a run; {@code out} receives progress and report lines. */
  public SpreadChaosRunner(SpreadChaosConfig config, Consumer<String> out) {
    this.config = config;
    this.out = out;
  }

  /** run executes the run and checks it; the report says whether it passed. */
  public Report run() throws Exception {
    long wallStart = System.nanoTime();
    Path dir = Path.of("target", "chaos", "spread-" + config.seed() + "-" + LocalDateTime.now().format(STAMP))
        .toAbsolutePath();
    log = new RunLog(out, dir);
    say("spread chaos: seed " + config.seed() + " (rerun with -Dchaos.seed=" + config.seed() + "), "
        + config.storms() + " storm(s), " + config.members() + " members x " + config.shards() + " shards; logs in "
        + dir);
    Random random = new Random(config.seed());
    List<String> shardNames = new ArrayList<>();
    for (int i = 0; i < config.shards(); i++) {
      shardNames.add("shard-" + i);
    }
    FleetRecorder recorder = new FleetRecorder(shardNames);
    String root = "/spread-chaos/" + UUID.randomUUID() + "/";
    String prefix = root + "session/";
    String counterPrefix = root + "counter/";
    Map<String, String> counters = new LinkedHashMap<>();
    shardNames.forEach(s -> counters.put(prefix + s, counterPrefix + s));
    List<String> reportLines = new ArrayList<>();
    List<SpreadBalance.Storm> storms = new ArrayList<>();
    Map<String, Integer> actions = new LinkedHashMap<>();
    StallMonitor stallMonitor = new StallMonitor(recorder.fleet());
    ChildReaper reaper = ChildReaper.install(SpreadChaosMember.class);
    EtcdStore store = null;
    SpreadFleet fleet = null;
    try {
      store = EtcdStore.start(config.base());
      History.Params params = store.params(config.base());
      EtcdHistoryReplay replay = new EtcdHistoryReplay(root, counters);
      fleet = new SpreadFleet(config, store.cluster().clientEndpoints(), prefix, counterPrefix, recorder, dir);
      long runStart = System.nanoTime();
      fleet.warmSpares(config.members() + MemberStorm.MAX_JOINS);
      for (int i = 0; i < config.members(); i++) {
        fleet.join(fleet.newSlot());
      }
      for (String slot : fleet.liveSlots()) {
        fleet.awaitReady(slot, Duration.ofSeconds(60));
      }
      awaitBalanced(recorder, fleet.liveProcesses(), Duration.ofSeconds(60));
      Thread.sleep(500);

      Set<String> gone = new HashSet<>();
      String aborted = null;
      for (int iteration = 1; iteration <= config.storms(); iteration++) {
        if (config.wallBudget() != null && System.nanoTime() - wallStart > config.wallBudget().toNanos()) {
          say("spread chaos: wall budget " + config.wallBudget() + " spent; stopping after " + (iteration - 1)
              + " storms");
          break;
        }
        try {
          storms.add(storm(iteration, fleet, gone, recorder, random, runStart, reportLines, actions));
        } catch (Exception | AssertionError e) {
          aborted = "storm " + iteration + " failed: " + e;
          recorder.fleet().note(aborted);
          say("spread chaos: " + aborted + "; checking the history so far");
          break;
        }
      }
      fleet.closeAll(Duration.ofSeconds(30));
      long runEnd = System.nanoTime();
      recorder.fleet().note("closed all members");
      Map<String, StoreHistory> records = replay.finishAll(store.adminClient());
      Report report = check(params, recorder, records, storms, runStart, runEnd, dir, reportLines, actions,
          System.nanoTime() - wallStart, aborted);
      say(report.summary());
      if (!report.ok()) {
        say(failureReport(report, recorder));
      }
      return report;
    } catch (Exception | Error e) {
      log.aborted("spread chaos", config.seed(), recorder.fleet(), e, "");
      throw e;
    } finally {
      reaper.close();
      stallMonitor.close();
      if (fleet != null) {
        fleet.close();
      }
      if (store != null) {
        store.close();
      }
    }
  }

  private SpreadBalance.Storm storm(int iteration, SpreadFleet fleet, Set<String> gone, FleetRecorder recorder,
      Random random, long runStart, List<String> reportLines, Map<String, Integer> actions) throws Exception {
    // Every join of the storm finds a warm JVM, so it lands at its drawn moment.
    fleet.awaitSpares(MemberStorm.MAX_JOINS, Duration.ofSeconds(60));
    // A random phase against the renewal cycles (TTL/3) and the moves they start.
    Thread.sleep((long) (random.nextDouble() * config.base().ttlSeconds() * 1000 / 3));
    MemberStorm plan = MemberStorm.draw(fleet.liveSlots(), gone, fleet::newSlot, config, random);
    recorder.fleet().note("inject " + SpreadChaosConfig.FAULT + " (storm " + iteration + "): " + plan.label());
    long inject = System.nanoTime();
    long lastLeave = inject;
    List<String> joined = new ArrayList<>();
    for (MemberStorm.Action a : plan.actions()) {
      actions.merge(switch (a.kind()) {
        case KILL -> "kill";
        case CLOSE -> "close";
        case JOIN -> a.returning() ? "back" : "new";
      }, 1, Integer::sum);
      long wait = inject + a.offsetMillis() * 1_000_000L - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
      }
      switch (a.kind()) {
        case KILL -> lastLeave = fleet.kill(a.slot());
        case CLOSE -> lastLeave = fleet.close(a.slot());
        case JOIN -> {
          fleet.join(a.slot());
          joined.add(a.slot());
        }
      }
      if (a.kind() == MemberStorm.Kind.JOIN) {
        gone.remove(a.slot());
      } else {
        gone.add(a.slot());
      }
    }
    long recover = System.nanoTime();
    FaultWindow w = new FaultWindow(iteration, SpreadChaosConfig.FAULT, History.TargetKind.CANDIDATE, plan.label(),
        true, inject, recover);
    recorder.fault(w);
    recorder.fleet().note("storm " + iteration + " done");
    // New spares start while the fleet settles: more load, as a real fleet's machines have.
    fleet.warmSpares(MemberStorm.MAX_JOINS);
    long settleFrom = lastLeave;
    for (String slot : joined) {
      settleFrom = Math.max(settleFrom, fleet.awaitReady(slot, Duration.ofSeconds(60)));
    }
    fleet.awaitClosed(Duration.ofSeconds(30));
    Set<String> after = fleet.liveProcesses();
    long balancedIn = awaitBalanced(recorder, after, Duration.ofSeconds(60));
    String line = ChaosContext.reportLine(w, runStart) + String.format(Locale.ROOT,
        " fleet=%s settled=+%.3fs balanced=+%.3fs", after, (settleFrom - runStart) / 1e9,
        (balancedIn - runStart) / 1e9);
    reportLines.add(line);
    say(line);
    // Let the workload run on the settled fleet before the next storm.
    Thread.sleep(300 + random.nextInt(300));
    return new SpreadBalance.Storm(w, after, settleFrom);
  }

  /**
   * awaitBalanced waits until, as the members report, every shard has one MASTER among {@code
   * fleet} and their counts differ by at most one; returns when (or, after the timeout, the
   * moment it gave up: the checker judges the bound).
   */
  private static long awaitBalanced(FleetRecorder recorder, Set<String> fleet, Duration timeout)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    String why = "";
    while (System.nanoTime() < end) {
      Map<String, Integer> counts = new HashMap<>();
      fleet.forEach(m -> counts.put(m, 0));
      why = null;
      for (Map.Entry<String, HistoryRecorder> e : recorder.shards().entrySet()) {
        Map<String, Long> masters = e.getValue().masters();
        if (masters.size() != 1 || !fleet.contains(masters.keySet().iterator().next())) {
          why = e.getKey() + " MASTERs " + masters;
          break;
        }
        counts.merge(masters.keySet().iterator().next(), 1, Integer::sum);
      }
      if (why == null) {
        int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        if (max - min <= 1) {
          return System.nanoTime();
        }
        why = "counts " + counts;
      }
      Thread.sleep(50);
    }
    recorder.fleet().note("fleet " + fleet + " not balanced within " + timeout + ": " + why);
    return System.nanoTime();
  }

  private Report check(History.Params params, FleetRecorder recorder, Map<String, StoreHistory> records,
      List<SpreadBalance.Storm> storms, long runStart, long runEnd, Path dir, List<String> reportLines,
      Map<String, Integer> actions, long wall, String aborted) throws IOException {
    List<ChaosViolation> violations = new ArrayList<>();
    Map<String, FaultStats> merged = new LinkedHashMap<>();
    Map<String, List<Interval>> terms = new LinkedHashMap<>();
    HistoryChecker.Totals totals = null;
    for (Map.Entry<String, HistoryRecorder> e : recorder.shards().entrySet()) {
      String shard = e.getKey();
      String key = records.keySet().stream().filter(k -> k.endsWith("/" + shard)).findFirst().orElseThrow();
      History h = recorder.history(shard, params, records.get(key), runStart, runEnd);
      terms.put(shard, h.intervals());
      HistoryChecker.Result r = HistoryChecker.check(h);
      for (ChaosViolation v : r.violations()) {
        violations.add(new ChaosViolation(v.kind(), v.at(), v.fault(), v.iteration(), shard + ": " + v.detail()));
      }
      r.stats().forEach((fault, s) -> merged.computeIfAbsent(fault, f -> new FaultStats()).add(s));
      totals = totals == null ? r.totals() : sum(totals, r.totals());
    }
    // Each shard counted every storm: the table counts it once.
    merged.forEach((fault, s) -> s.iterations = (int) storms.stream()
        .filter(st -> st.window().fault().equals(fault)).count());
    List<SpreadBalance.Outcome> balance = SpreadBalance.check(params, terms, storms, runEnd, violations);
    violations.sort((x, y) -> Long.compare(x.at(), y.at()));
    HistoryChecker.Result result = new HistoryChecker.Result(List.copyOf(violations), merged, totals);
    Path historyFile = log.historyFile();
    recorder.fleet().writeLog(historyFile);
    Report report = new Report(config, result, balance, List.copyOf(violations), historyFile, reportLines,
        Map.copyOf(actions), wall, aborted);
    Files.writeString(dir.resolve("summary.md"), report.summary() + "\n" + String.join("\n", reportLines) + "\n",
        StandardCharsets.UTF_8);
    return report;
  }

  /** sum adds two shards' totals; stalls are the fleet's, the same in every shard, so they are not added. */
  private static HistoryChecker.Totals sum(HistoryChecker.Totals a, HistoryChecker.Totals b) {
    return new HistoryChecker.Totals(a.storeWrites() + b.storeWrites(), a.finalCounter() + b.finalCounter(),
        a.ok() + b.ok(), a.fenced() + b.fenced(), a.conflict() + b.conflict(), a.error() + b.error(),
        a.errorApplied() + b.errorApplied(), a.terms() + b.terms(), a.stallThreshold(), a.stalls(),
        a.longestStall());
  }

  private void say(String line) {
    log.say(line);
  }

  private static String failureReport(Report r, FleetRecorder recorder) {
    StringBuilder b = new StringBuilder();
    b.append("SPREAD CHAOS FAILURE, seed ").append(r.config().seed()).append(" (rerun: -Dchaos.seed=")
        .append(r.config().seed()).append(" -Dchaos.iterations=").append(r.config().storms())
        .append("); full history in ").append(r.historyFile()).append('\n');
    if (r.aborted() != null) {
      b.append("the schedule stopped early: ").append(r.aborted()).append('\n');
    }
    RunLog.appendViolations(b, r.violations(), recorder.fleet(), r.config().base().ttlSeconds() * 1_500_000_000L);
    b.append("storms:\n");
    r.reportLines().forEach(l -> b.append("  ").append(l).append('\n'));
    return b.toString();
  }
}
