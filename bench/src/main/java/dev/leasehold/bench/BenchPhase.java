package dev.leasehold.bench;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * BenchPhase is one phase of {@link Bench} (floor, idle cost, handover, crash failover, partition,
 * scale) against the run's etcd cluster, with what the phases share: the run's options, its
 * {@link Results}, and the helpers that launch candidates and run a body for every contender.
 *
 * <p>Not thread-safe: {@link Bench} runs one phase at a time, from one thread ({@link #each} with
 * {@code --parallel} runs the contenders' bodies at once; they share only synchronized results).
 */
abstract class BenchPhase {
  static final Duration WAIT = Duration.ofSeconds(30);

  protected final Bench.Options o;
  protected final Results r;
  protected final EtcdCluster etcd;

  BenchPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    this.o = o;
    this.r = r;
    this.etcd = etcd;
  }

  /** run runs the phase's scenarios for every contender and puts the figures into {@link #r}. */
  abstract void run() throws Exception;

  /**
   * awaitNoLeases waits until etcd holds no lease (earlier scenarios' leases expire within their
   * TTL), so that an idle window only sees the traffic of the candidates it measures.
   */
  final void awaitNoLeases(String before) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    int left;
    while ((left = EtcdMetrics.leases(etcd.clientEndpoints().get(0))) > 0 && System.nanoTime() < end) {
      Thread.sleep(250);
    }
    if (left > 0) {
      r.problems.add(before + ": " + left + " leases of earlier scenarios still alive after 15 s");
    }
  }

  /**
   * each runs {@code body} for every contender, one after the other; with {@code --parallel}
   * (the smoke test's setting, where only the presence of numbers matters) all at once.
   */
  final void each(List<Kind> kinds, Bench.PerContender<Kind> body) throws Exception {
    Bench.each(o.parallel(), kinds, body);
  }

  final List<Kind> withVariants() {
    List<Kind> all = new ArrayList<>(o.contenders());
    o.variants().stream().filter(v -> !all.contains(v)).forEach(all::add);
    return all;
  }

  /**
   * settle gives every candidate time to join after the first election (a jetcd candidate
   * not yet queued when the leader resigns lets the resigner win again).
   */
  final void settle() throws InterruptedException {
    Thread.sleep(o.groupSettleMillis());
  }

  final void startCandidates(Group g, Kind k, String key, int ttl, int n, List<String> eps, String prefix)
      throws Exception {
    List<Group.Child> cs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      cs.add(launchCandidate(g, k, key, ttl, eps, prefix + i));
    }
    for (Group.Child c : cs) {
      g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
    }
  }

  final Group.Child launchCandidate(Group g, Kind k, String key, int ttl, List<String> eps, String id) {
    return g.launch(k.name().toLowerCase() + "-" + id + "-" + UUID.randomUUID().toString().substring(0, 4),
        ContenderMain.class.getName(), o.childJvm(), contenderArgs(k, eps, key, id, ttl, 1));
  }

  static List<String> contenderArgs(Kind k, List<String> eps, String key, String id, int ttl, int count) {
    return List.of("--kind=" + k.name(), "--endpoints=" + String.join(",", eps), "--key=" + key,
        "--id=" + id, "--ttl-seconds=" + ttl, "--count=" + count);
  }

  static String key(String scenario, Kind k) {
    return "/leasehold-bench/" + scenario + "/" + k.name().toLowerCase() + "/" + UUID.randomUUID();
  }
}
