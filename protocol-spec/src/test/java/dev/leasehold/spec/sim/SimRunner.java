package dev.leasehold.spec.sim;

import dev.leasehold.spec.sim.Scenario.Fault;
import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Simulation.Result;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** SimRunner runs many schedules in parallel, and replays and minimizes a failing one. */
final class SimRunner {
  private SimRunner() {}

  /** Summary of a batch of schedules. */
  static final class Summary {
    final Stats stats = new Stats();
    final List<Result> failures = new ArrayList<>();
    long wallNanos;

    long schedules() {
      return stats.get(Stats.Stat.SCHEDULES);
    }

    String describe() {
      return String.format("%,d schedules, %,d machine steps, %,d events, %,.0f s of virtual time in %.1f s wall%n",
          schedules(), stats.get(Stats.Stat.STEPS), stats.get(Stats.Stat.EVENTS),
          stats.get(Stats.Stat.VIRTUAL_MS) / 1000.0, wallNanos / 1e9) + stats;
    }
  }

  /**
   * run simulates seeds {@code firstSeed .. firstSeed + count - 1} on {@code threads} threads,
   * stopping early once {@code stopAfter} failures were found.
   */
  static Summary run(long firstSeed, long count, Mutation mutation, EnumSet<Inv> checked, int threads, int stopAfter) {
    long start = System.nanoTime();
    AtomicLong next = new AtomicLong(firstSeed);
    long end = firstSeed + count;
    Summary summary = new Summary();
    long progressEvery = Math.max(100_000, count / 20);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Stats>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          Stats local = new Stats();
          while (true) {
            long seed = next.getAndIncrement();
            if (seed >= end) {
              break;
            }
            synchronized (summary) {
              if (summary.failures.size() >= stopAfter) {
                break;
              }
            }
            Result r = new Simulation(new Scenario(seed, mutation), checked, 0).run();
            local.merge(r.stats());
            if (!r.ok()) {
              synchronized (summary) {
                summary.failures.add(r);
              }
            }
            long done = seed - firstSeed + 1;
            if (count >= 200_000 && done % progressEvery == 0) {
              System.err.printf("sim: %,d / %,d schedules after %.0f s%n", done, count, (System.nanoTime() - start) / 1e9);
            }
          }
          return local;
        }));
      }
      for (Future<Stats> f : futures) {
        summary.stats.merge(f.get());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
      try {
        pool.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    summary.failures.sort(Comparator.comparingLong(r -> r.scenario().seed));
    summary.wallNanos = System.nanoTime() - start;
    return summary;
  }

  /** replay runs one seed (optionally with only some faults), keeping the last trace lines. */
  static Result replay(long seed, Mutation mutation, EnumSet<Inv> checked, BitSet faults, int traceLines) {
    Scenario sc = new Scenario(seed, mutation);
    if (faults != null) {
      sc = sc.withFaults(faults);
    }
    return new Simulation(sc, checked, traceLines).run();
  }

  /**
   * minimize drops faults one at a time while the same invariant still fails (a greedy delta
   * debugging pass), and returns the kept fault indexes.
   */
  static BitSet minimize(Result failing, EnumSet<Inv> checked, int budget) {
    Scenario base = new Scenario(failing.scenario().seed, failing.scenario().mutation);
    Inv inv = failing.violation().inv;
    BitSet keep = new BitSet();
    for (Fault f : failing.scenario().faults) {
      keep.set(f.index());
    }
    int runs = 0;
    boolean progress = true;
    while (progress && runs < budget) {
      progress = false;
      for (int i = keep.length() - 1; i >= 0 && runs < budget; i = keep.previousSetBit(i - 1)) {
        if (!keep.get(i)) {
          continue;
        }
        BitSet trial = (BitSet) keep.clone();
        trial.clear(i);
        Result r = new Simulation(base.withFaults(trial), checked, 0).run();
        runs++;
        if (!r.ok() && r.violation().inv == inv) {
          keep = trial;
          progress = true;
        }
      }
    }
    return keep;
  }

  /** report explains a failure: seed, minimized schedule, the trace's last lines, how to reproduce. */
  static String report(Result failing, EnumSet<Inv> checked, int traceLines) {
    Scenario sc = failing.scenario();
    BitSet keep = minimize(failing, checked, 400);
    Result small = replay(sc.seed, sc.mutation, checked, keep, traceLines);
    boolean minimized = !small.ok() && small.violation().inv == failing.violation().inv;
    if (!minimized) {
      keep = null;
      small = replay(sc.seed, sc.mutation, checked, null, traceLines);
    }
    String faults = keep == null ? "" : " -Dsim.faults=" + keep.stream().mapToObj(Integer::toString)
        .collect(Collectors.joining(","));
    StringBuilder b = new StringBuilder();
    b.append("simulation violation with seed ").append(sc.seed).append(": ").append(failing.violation().getMessage())
        .append("\nreproduce: mvn -B -pl protocol-spec test -Dtest=SimulationTest#replay -Dsim.seed=").append(sc.seed)
        .append(sc.mutation == Mutation.NONE ? "" : " -Dsim.mutation=" + sc.mutation).append(faults)
        .append("\n").append(minimized ? "minimized schedule (" + keep.cardinality() + " of " + sc.faults.size()
            + " faults kept): " : "schedule: ")
        .append(small.scenario().describe())
        .append("\nviolation in this run: ").append(small.violation() == null ? "none" : small.violation().getMessage())
        .append("\nlast ").append(small.trace().size()).append(" trace lines:\n");
    for (String line : small.trace()) {
      b.append("  ").append(line).append('\n');
    }
    return b.toString();
  }
}
