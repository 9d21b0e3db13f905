package dev.leasehold.it.chaos;

import dev.leasehold.it.CandidateMain;
import dev.leasehold.it.chaos.ChaosContext.Slot;
import dev.leasehold.it.chaos.History.FaultWindow;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * ChaosRunner runs one chaos run: the store ({@link ChaosStore}: a 3-member etcd cluster behind
 * peer proxies, or a mariadbd), candidate JVMs behind their own client proxies running the
 * fenced counter workload, and a seeded schedule of faults; then it reads the store's own
 * record and checks the whole history.
 *
 * <p>Progress and report lines go to the caller and, as they come, to {@code progress.log} in
 * the run's directory under {@code target/chaos}.
 *
 * <p>Everything it starts (store processes, candidate JVMs, proxies) is ended before {@link #run}
 * returns or throws. Not thread-safe; one run per instance.
 */
public final class ChaosRunner {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final ChaosConfig config;
  private final Consumer<String> out;
  private RunLog log;

  /**
   * Report is a finished run.
   *
   * @param config the settings
   * @param result the checker's verdict and numbers
   * @param history the full history
   * @param historyFile the raw log of every line and harness note
   * @param reportLines one line per fault window
   * @param wallNanos the whole run's wall time, the store's start included
   * @param aborted why the schedule stopped early (a harness wait failed), or null
   * @param storeSettings the store's settings for the summary line ({@link ChaosStore#describe})
   */
  public record Report(
      ChaosConfig config,
      HistoryChecker.Result result,
      History history,
      Path historyFile,
      List<String> reportLines,
      long wallNanos,
      String aborted,
      String storeSettings) {

    /** ok is true when every iteration ran and the checker found nothing. */
    public boolean ok() {
      return aborted == null && result.ok();
    }

    /** summary is the table plus the seed and the wall time. */
    public String summary() {
      return "chaos run, seed " + config.seed() + ", " + history.faults().size() + " iterations, wall time "
          + String.format(Locale.ROOT, "%.1f s", wallNanos / 1e9) + ", TTL " + config.ttlSeconds()
          + " s, " + storeSettings + "\n" + result.table();
    }
  }

  /** ChaosRunner prepares a run; {@code out} receives progress and report lines. */
  public ChaosRunner(ChaosConfig config, Consumer<String> out) {
    this.config = config;
    this.out = out;
  }

  /** run executes the run and checks it; the report says whether it passed. */
  public Report run() throws Exception {
    long wallStart = System.nanoTime();
    String runName = "chaos-" + config.seed() + "-" + LocalDateTime.now().format(STAMP);
    Path dir = Path.of("target", "chaos", runName).toAbsolutePath();
    log = new RunLog(out, dir);
    say("chaos: seed " + config.seed() + " (rerun with -Dchaos.seed=" + config.seed() + "), "
        + config.iterationsPerFault() + " iteration(s) per fault, faults "
        + config.faults().stream().map(Fault::name).toList() + "; logs in " + dir);
    Random random = new Random(config.seed());
    HistoryRecorder recorder = new HistoryRecorder();
    String prefix = "/chaos/" + UUID.randomUUID() + "/";
    List<String> reportLines = new ArrayList<>();
    StallMonitor stallMonitor = new StallMonitor(recorder);
    // etcd members and mariadbd have their launchers' own reapers.
    ChildReaper reaper = ChildReaper.install(CandidateMain.class);
    ChaosStore store = null;
    AutoCloseable storeMonitor = null;
    ChaosContext ctx = null;
    long runStart = 0;
    long runEnd = 0;
    String electionKey = prefix + "election";
    String counterKey = prefix + "counter";
    try {
      store = switch (config.store()) {
        case ETCD -> EtcdStore.start(config);
        case MARIADB -> MariaDbStore.start();
        case POSTGRES -> PostgresStore.start();
        case POSTGRES_PGBOUNCER -> PostgresStore.throughPgBouncer();
      };
      store.prepare(electionKey, counterKey);
      storeMonitor = store.monitor(recorder, store.params(config).stallNanos());
      ctx = new ChaosContext(config, store, recorder, electionKey, counterKey, dir);
      List<Integer> clientPorts = store.clientPorts();
      for (int i = 0; i < config.candidates(); i++) {
        ctx.addSlot("c" + i, ClientProxies.start("c" + i, clientPorts));
      }
      runStart = System.nanoTime();
      for (Slot s : ctx.slots()) {
        ctx.start(s);
      }
      ctx.awaitSteady(Duration.ofSeconds(60));
      Thread.sleep(1000);

      List<Fault> schedule = new ArrayList<>();
      for (int i = 0; i < config.iterationsPerFault(); i++) {
        List<Fault> round = new ArrayList<>(config.faults());
        Collections.shuffle(round, random);
        schedule.addAll(round);
      }
      int iteration = 0;
      String aborted = null;
      for (Fault fault : schedule) {
        if (config.wallBudget() != null && System.nanoTime() - wallStart > config.wallBudget().toNanos()) {
          say("chaos: wall budget " + config.wallBudget() + " spent; stopping after " + iteration
              + " iterations");
          break;
        }
        iteration++;
        try {
          runIteration(ctx, fault, iteration, random, recorder, runStart, reportLines);
        } catch (Exception | AssertionError e) {
          aborted = "iteration " + iteration + " (" + fault.name() + ") failed: " + e;
          recorder.note(aborted);
          say("chaos: " + aborted + "; checking the history so far");
          recoverQuietly(ctx, fault);
          break;
        }
      }
      // Close every candidate gracefully: their terms end with CLOSED, their leases are revoked (rows released).
      for (Slot s : ctx.slots()) {
        if (s.candidate().isAlive()) {
          s.candidate().send("close");
        }
      }
      for (Slot s : ctx.slots()) {
        if (s.candidate().isAlive()) {
          s.candidate().awaitLine("CLOSED"::equals, Duration.ofSeconds(30));
        }
      }
      runEnd = System.nanoTime();
      recorder.note("closed all candidates");
      StoreHistory record = store.read(electionKey, counterKey);
      History history = new History(store.params(config),
          recorder.intervals(runEnd), recorder.attempts(), recorder.faults(), recorder.freezes(), recorder.stalls(),
          record.writes(), record.incarnations(), record.finalCounter(), runStart, runEnd, recorder.clocks());
      HistoryChecker.Result result = HistoryChecker.check(history);
      Path historyFile = log.historyFile();
      recorder.writeLog(historyFile);
      Report report = new Report(config, result, history, historyFile, reportLines, System.nanoTime() - wallStart,
          aborted, store.describe(config));
      Files.writeString(dir.resolve("summary.md"), report.summary() + "\n" + String.join("\n", reportLines) + "\n",
          StandardCharsets.UTF_8);
      say(report.summary());
      if (!report.ok()) {
        say(failureReport(report, recorder));
      }
      return report;
    } catch (Exception | Error e) {
      // Whatever broke, leave the history behind for the post-mortem.
      log.aborted("chaos", config.seed(), recorder, e,
          store instanceof EtcdStore etcd ? "\npeer proxies: " + etcd.describePeers() : "");
      throw e;
    } finally {
      reaper.close();
      stallMonitor.close();
      if (storeMonitor != null) {
        try {
          storeMonitor.close();
        } catch (Exception ignored) {
          // Only a measurement.
        }
      }
      if (ctx != null) {
        for (Slot s : ctx.slots()) {
          if (s.candidate() != null) {
            s.candidate().close();
          }
          s.links().close();
        }
      }
      if (store != null) {
        store.close();
      }
    }
  }

  private void runIteration(ChaosContext ctx, Fault fault, int iteration, Random random, HistoryRecorder recorder,
      long runStart, List<String> reportLines) throws Exception {
    fault.checkBefore(ctx);
    // A random phase against the renewal cycles (the MASTER's TTL/6, a standby lease's TTL/3)
    // and the store's own timers (etcd's heartbeats).
    Thread.sleep((long) (random.nextDouble() * ctx.ttlMillis() / 3));
    long hold = fault.hold(ctx, random).toMillis();
    recorder.note("inject " + fault.name() + " (iteration " + iteration + ")");
    long inject = System.nanoTime();
    String target = fault.inject(ctx, random);
    recorder.note("injected " + fault.name() + " on " + target);
    Thread.sleep(hold);
    fault.recover(ctx);
    long recover = System.nanoTime();
    recorder.note("recovered " + fault.name() + " on " + target);
    FaultWindow w = new FaultWindow(iteration, fault.name(), fault.kind(), target, fault.quorumKept(), inject,
        recover);
    recorder.fault(w);
    fault.checkAfter(ctx);
    String line = ChaosContext.reportLine(w, runStart) + String.format(Locale.ROOT, " steady=+%.3fs",
        (System.nanoTime() - runStart) / 1e9);
    reportLines.add(line);
    say(line);
    // Let the workload run under the (new) MASTER before the next fault.
    Thread.sleep(500 + random.nextInt(500));
  }

  private void say(String line) {
    log.say(line);
  }

  private void recoverQuietly(ChaosContext ctx, Fault fault) {
    // Heal whatever the failed iteration may have left cut, frozen or dead, so the candidates can
    // be closed and the store read; which fault it was does not matter here.
    say("chaos: healing everything after " + fault.name());
    ctx.store().healAll();
    for (Slot s : ctx.slots()) {
      s.links().heal();
      try {
        if (s.candidate() != null && s.candidate().isAlive()) {
          s.candidate().resume();
        } else {
          ctx.restart(s);
        }
      } catch (Exception ignored) {
        // Best effort; the final close kills it anyway.
      }
    }
  }

  private static String failureReport(Report r, HistoryRecorder recorder) {
    StringBuilder b = new StringBuilder();
    b.append("CHAOS FAILURE, seed ").append(r.config().seed()).append(" (rerun: -Dchaos.seed=").append(r.config().seed())
        .append(" -Dchaos.iterations=").append(r.config().iterationsPerFault()).append("); full history in ")
        .append(r.historyFile()).append('\n');
    if (r.aborted() != null) {
      b.append("the schedule stopped early: ").append(r.aborted()).append('\n');
    }
    RunLog.appendViolations(b, r.result().violations(), recorder, r.config().ttlSeconds() * 1_500_000_000L);
    b.append("fault windows:\n");
    r.reportLines().forEach(l -> b.append("  ").append(l).append('\n'));
    return b.toString();
  }
}
