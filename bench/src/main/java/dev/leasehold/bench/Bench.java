package dev.leasehold.bench;

import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Bench runs every scenario against one 3-member etcd cluster it starts itself, for every
 * contender, and collects the figures in {@link Results}.
 *
 * <p>Scenarios run one contender at a time, so no contender's traffic disturbs another's
 * figures; all share the cluster, the machine and the run. Each phase is a {@link BenchPhase}.
 * Not thread-safe.
 */
final class Bench {
  /** Options are the knobs of one run; {@link BenchMain} fills them from the command line. */
  record Options(
      List<Kind> contenders,
      List<Kind> variants,
      int handoverTrials,
      int handoverWarmup,
      int handoverTtl,
      int crashTrials,
      List<Integer> crashTtls,
      int partitionTrials,
      int partitionTtl,
      List<Integer> idleCounts,
      int idleTtl,
      int idleWindowSeconds,
      int idleSettleSeconds,
      int groupSettleMillis,
      int crashWarmup,
      int candidates,
      List<String> childJvm,
      boolean parallel,
      int scaleCount,
      int scaleTtl,
      int scaleOwnClientCount,
      int scaleHandovers,
      int scalePaceMicros,
      int scaleColdRounds,
      int floorSamples,
      int pathSamples,
      List<String> phases,
      Path logDir,
      boolean handoverTrace,
      SessionPhase.Options session) {}

  private final Options o;
  private final Results r;

  Bench(Options options, Results results) {
    this.o = options;
    this.r = results;
  }

  /** run starts the cluster, runs every scenario and stops everything it started. */
  void run() throws Exception {
    say("starting a 3-member etcd cluster");
    try (EtcdCluster cluster = EtcdCluster.builder().members(3).name("bench").start()) {
      say("etcd up: " + cluster.clientEndpointsCsv());
      phase("floor", new FloorPhase(o, r, cluster));
      phase("idle cost", new IdlePhase(o, r, cluster));
      phase("handover", new HandoverPhase(o, r, cluster));
      phase("crash failover", new CrashPhase(o, r, cluster));
      phase("partition", new PartitionPhase(o, r, cluster));
      phase("scale", new ScalePhase(o, r, cluster));
      phase("session", new SessionPhase(o, r, cluster));
      phase("spread", new SpreadPhase(o, r, cluster));
      r.etcdSlowApplies = EtcdLogs.count(cluster.logDir(), "took too long");
      r.etcdSlowFsyncs = EtcdLogs.count(cluster.logDir(), "slow fdatasync");
    }
  }

  private void phase(String name, BenchPhase p) {
    if (!o.phases().contains(name.split(" ")[0])) {
      return;
    }
    long t = System.nanoTime();
    say("== " + name);
    try {
      p.run();
    } catch (Exception e) {
      r.problems.add(name + ": phase aborted: " + e);
      say(name + " aborted: " + e);
    }
    say(String.format("== %s done in %.0f s", name, (System.nanoTime() - t) / 1e9));
  }

  /** PerContender is work run for one contender of a scenario. */
  interface PerContender<K> {
    void run(K k) throws Exception;
  }

  /**
   * each runs {@code body} for every contender, one after the other; with {@code parallel} (the smoke tests'
   * setting, where only the presence of numbers matters) all at once.
   */
  static <K> void each(boolean parallel, List<K> kinds, PerContender<K> body) throws Exception {
    if (!parallel) {
      for (K k : kinds) {
        body.run(k);
      }
      return;
    }
    ExecutorService ex = Executors.newFixedThreadPool(kinds.size());
    try {
      List<Future<Object>> fs = new ArrayList<>();
      for (K k : kinds) {
        fs.add(ex.submit(() -> {
          body.run(k);
          return null;
        }));
      }
      for (Future<Object> f : fs) {
        f.get();
      }
    } finally {
      ex.shutdownNow();
    }
  }

  static void say(String s) {
    System.out.println("[bench] " + s);
  }
}
