package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * ChaosRuns holds what the chaos ITs share: the {@code -Dchaos.*} properties applied to a
 * store's default settings, and one run that prints its lines and fails with all of them.
 * Stateless; thread-safe.
 */
final class ChaosRuns {
  private ChaosRuns() {}

  /**
   * configure applies {@code chaos.electionTimeoutMillis}, {@code chaos.preVote},
   * {@code chaos.requireLeader}, {@code chaos.ttlSeconds} and {@code chaos.budget.minutes} (or,
   * for a bounded run, {@code boundedBudget}) to {@code config}.
   */
  static ChaosConfig configure(ChaosConfig config, boolean bounded, Duration boundedBudget) {
    Integer election = Integer.getInteger("chaos.electionTimeoutMillis");
    if (election != null) {
      config = config.withElectionTimeoutMillis(election);
    }
    String preVote = System.getProperty("chaos.preVote");
    if (preVote != null) {
      config = config.withPreVote(Boolean.parseBoolean(preVote));
    }
    String requireLeader = System.getProperty("chaos.requireLeader");
    if (requireLeader != null) {
      config = config.withRequireLeader(Boolean.parseBoolean(requireLeader));
    }
    Integer ttl = Integer.getInteger("chaos.ttlSeconds");
    if (ttl != null) {
      config = config.withTtlSeconds(ttl);
    }
    String budget = System.getProperty("chaos.budget.minutes");
    if (budget != null) {
      config = config.withWallBudget(Duration.ofMinutes(Long.parseLong(budget)));
    } else if (bounded) {
      config = config.withWallBudget(boundedBudget);
    }
    return config;
  }

  /** run runs {@code config}, printing every line, and asserts that it passed. */
  static ChaosRunner.Report run(ChaosConfig config) throws Exception {
    return printing(config.seed(), out -> new ChaosRunner(config, out).run(), ChaosRunner.Report::ok);
  }

  /** A run of some chaos runner, given where its lines go. */
  interface Run<R> {
    R run(Consumer<String> out) throws Exception;
  }

  /**
   * printing runs {@code run}, printing every line it reports, and asserts that {@code ok} holds
   * for its report; the failure message holds every line.
   */
  static <R> R printing(long seed, Run<R> run, Predicate<R> ok) throws Exception {
    StringBuilder printed = new StringBuilder();
    R report = run.run(line -> {
      System.out.println(line);
      synchronized (printed) {
        printed.append(line).append('\n');
      }
    });
    assertTrue(ok.test(report), () -> "chaos run failed, seed " + seed + ":\n" + printed);
    return report;
  }

  /**
   * sqlSuite is a SQL store's chaos IT: the bounded run of the normal suite (seed
   * {@code defaultSeed}, every fault once, a 70 s budget, at most 90 s including the server's
   * start) unless {@code -Dchaos.iterations} asks for a long run; {@code settings} makes the
   * store's config from a seed and the iterations per fault, {@code named} picks the faults
   * {@code -Dchaos.faults} names.
   */
  static void sqlSuite(long defaultSeed, BiFunction<Long, Integer, ChaosConfig> settings,
      Function<String, List<Fault>> named) throws Exception {
    sqlSuite(defaultSeed, settings, named, "all");
  }

  /**
   * sqlSuite is {@link #sqlSuite(long, BiFunction, Function)} whose bounded run, unless
   * {@code -Dchaos.faults} says otherwise, runs the faults {@code boundedFaults} lists (comma
   * separated, or "all"); a run for which {@code named} keeps no fault is skipped.
   */
  static void sqlSuite(long defaultSeed, BiFunction<Long, Integer, ChaosConfig> settings,
      Function<String, List<Fault>> named, String boundedFaults) throws Exception {
    long seed = Long.getLong("chaos.seed", defaultSeed);
    Integer iterations = Integer.getInteger("chaos.iterations");
    boolean bounded = iterations == null;
    String listed = System.getProperty("chaos.faults", bounded ? boundedFaults : "all");
    List<Fault> faults = named.apply(listed);
    assumeFalse(faults.isEmpty(), "chaos.faults " + listed + " lists no fault of this run");
    ChaosConfig config = settings.apply(seed, bounded ? 1 : iterations).withFaults(faults);
    // Leave room for closing and checking within the limit.
    config = configure(config, bounded, Duration.ofSeconds(70));
    ChaosRunner.Report report = run(config);
    if (bounded) {
      Duration limit = Duration.ofSeconds(90);
      assertTrue(report.wallNanos() < limit.toNanos(),
          "the bounded run took " + report.wallNanos() / 1_000_000 + " ms, more than " + limit);
      assertTrue(report.history().faults().size() == config.faults().size(),
          "the bounded run ran " + report.history().faults().size() + " of " + config.faults().size() + " faults");
    }
  }
}
