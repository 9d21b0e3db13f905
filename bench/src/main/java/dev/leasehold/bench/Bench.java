package dev.leasehold.bench;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.chaos.ClientProxies;
import dev.leasehold.it.chaos.TcpProxy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * Bench runs every scenario against one 3-member etcd cluster it starts itself, for every
 * contender, and collects the figures in {@link Results}.
 *
 * <p>Scenarios run one contender at a time, so no contender's traffic disturbs another's
 * figures; all share the cluster, the machine and the run. Not thread-safe.
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
      int floorSamples,
      int pathSamples,
      List<String> phases,
      Path logDir,
      boolean handoverTrace) {}

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Options o;
  private final Results r;
  private EtcdCluster etcd;

  Bench(Options options, Results results) {
    this.o = options;
    this.r = results;
  }

  /** run starts the cluster, runs every scenario and stops everything it started. */
  void run() throws Exception {
    say("starting a 3-member etcd cluster");
    try (EtcdCluster cluster = EtcdCluster.builder().members(3).name("bench").start()) {
      etcd = cluster;
      say("etcd up: " + cluster.clientEndpointsCsv());
      phase("floor", this::floor);
      phase("idle cost", this::idle);
      phase("handover", this::handover);
      phase("crash failover", this::crash);
      phase("partition", this::partition);
      phase("scale", this::scale);
      r.etcdSlowApplies = EtcdLogs.count(cluster.logDir(), "took too long");
      r.etcdSlowFsyncs = EtcdLogs.count(cluster.logDir(), "slow fdatasync");
    }
  }

  private interface Phase {
    void run() throws Exception;
  }

  private void phase(String name, Phase p) {
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

  // ---- floor ----

  private void floor() throws Exception {
    Floor f = new Floor(etcd.clientEndpoints(), o.handoverTtl());
    Map<String, List<Double>> m = f.run(o.floorSamples(), Math.max(5, o.floorSamples() / 10));
    // The handover-path figures use their own (smaller) count: each trial is a full handover.
    r.floor.putAll(m);
    r.floorHops.putAll(f.hops());
    if (o.pathSamples() < o.floorSamples()) {
      for (String k : List.of(Floor.PATH_GRANT_TXN, Floor.PATH_STANDBY, Floor.PATH_READ)) {
        List<Double> l = r.floor.get(k);
        if (l != null && l.size() > o.pathSamples()) {
          r.floor.put(k, new ArrayList<>(l.subList(0, o.pathSamples())));
        }
      }
    }
    for (Map.Entry<String, List<Double>> e : r.floor.entrySet()) {
      say(String.format("floor %s: p50 %.2f ms", e.getKey(), Stats.of(e.getValue()).p50()));
    }
  }

  // ---- idle cost ----

  private void idle() throws Exception {
    List<String> eps = etcd.clientEndpoints();
    EtcdMetrics.Sample a = EtcdMetrics.scrape(eps);
    Thread.sleep(o.idleWindowSeconds() * 1000L);
    r.idleBaseline = EtcdMetrics.Rates.between(a, EtcdMetrics.scrape(eps));
    say(String.format("idle baseline (no candidates): %.2f proposals/s, %.2f RPCs/s",
        r.idleBaseline.proposalsPerSec(), r.idleBaseline.rpcsPerSec()));
    each(withVariants(), k -> {
      Map<Integer, EtcdMetrics.Rates> byCount = Collections.synchronizedMap(new TreeMap<>());
      r.idle.put(k, byCount);
      for (int n : o.idleCounts()) {
        if (!o.parallel()) {
          awaitNoLeases("idle " + k.label() + " x" + n);
        }
        try (Group g = new Group(o.logDir().resolve("idle"))) {
          String key = key("idle", k);
          List<String> jvm = new ArrayList<>(o.childJvm());
          if (n > 20) {
            jvm.add("-Xmx1g");
          }
          Group.Child c = g.launch(k.name().toLowerCase() + "-idle-" + n, ContenderMain.class.getName(), jvm,
              contenderArgs(k, eps, key, "idle", o.idleTtl(), n));
          g.await(0, e -> e.is("READY"), Duration.ofSeconds(60));
          g.await(0, e -> e.is("ELECTED"), Duration.ofSeconds(60));
          // Let start-up traffic (leases granted by the losers and revoked) settle first.
          Thread.sleep(o.idleSettleSeconds() * 1000L);
          int mark = g.mark();
          EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
          Thread.sleep(o.idleWindowSeconds() * 1000L);
          EtcdMetrics.Sample s2 = EtcdMetrics.scrape(eps);
          EtcdMetrics.Rates rates = EtcdMetrics.Rates.between(s1, s2);
          if (g.find(mark, e -> e.is("LOST") || e.is("ELECTED"), Duration.ZERO).isPresent()) {
            r.problems.add("idle " + k.label() + " x" + n + ": leadership changed during the window");
          }
          byCount.put(n, rates);
          say(String.format("idle %s x%d: %.2f proposals/s, %.1f RPCs/s, %.1f msgs/s", k.label(), n,
              rates.proposalsPerSec(), rates.rpcsPerSec(), rates.messagesPerSec()));
          c.close(Duration.ofSeconds(15));
        }
        if (!o.parallel()) {
          // close() of every candidate has returned: what is left was not revoked.
          r.leasesLeftAfterIdle.computeIfAbsent(k, x -> Collections.synchronizedMap(new TreeMap<>()))
              .put(n, EtcdMetrics.leases(etcd.clientEndpoints().get(0)));
        }
      }
    });
  }

  // ---- graceful handover ----

  private void handover() throws Exception {
    each(withVariants(), k -> {
      List<Double> samples = Collections.synchronizedList(new ArrayList<>());
      r.handover.put(k, samples);
      boolean traced = o.handoverTrace() && k.name().startsWith("LEASEHOLD");
      HandoverHops hops = new HandoverHops();
      if (traced) {
        r.handoverHops.put(k, hops);
      }
      try (Group g = new Group(o.logDir().resolve("handover"))) {
        String key = key("handover", k);
        List<String> jvm = new ArrayList<>(o.childJvm());
        if (traced) {
          jvm.add("-Dleasehold.trace=true");
        }
        List<Group.Child> cs = new ArrayList<>();
        for (int i = 0; i < o.candidates(); i++) {
          cs.add(g.launch(k.name().toLowerCase() + "-h" + i + "-" + UUID.randomUUID().toString().substring(0, 4),
              ContenderMain.class.getName(), jvm, contenderArgs(k, etcd.clientEndpoints(), key, "h" + i,
                  o.handoverTtl(), 1)));
        }
        for (Group.Child c : cs) {
          g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
        }
        g.awaitLeader(WAIT);
        settle();
        EtcdMetrics.Sample m1 = EtcdMetrics.scrape(etcd.clientEndpoints());
        int total = o.handoverWarmup() + o.handoverTrials();
        for (int i = 0; i < total; i++) {
          Group.Ev leader = g.awaitLeader(WAIT);
          int mark = g.mark();
          leader.child().send("resign");
          Group.Ev resign = g.await(mark, e -> e.is("RESIGN") && e.child() == leader.child(), WAIT);
          Optional<Group.Ev> next = g.find(mark,
              e -> e.is("ELECTED") && e.child() != leader.child() && e.nanos() > resign.nanos(), WAIT);
          if (next.isEmpty()) {
            r.problems.add("handover " + k.label() + " trial " + i + ": no new leader within " + WAIT);
            continue;
          }
          double ms = (next.get().nanos() - resign.nanos()) / 1e6;
          if (i >= o.handoverWarmup()) {
            samples.add(ms);
          }
          g.await(mark, e -> e.is("LOST") && e.child() == leader.child(), WAIT);
          // Let the resigned candidate rejoin before the next trial.
          Thread.sleep(150 + ThreadLocalRandom.current().nextInt(100));
          if (traced) {
            List<List<HandoverHops.Mark>> marks = drainTraces(g, List.of(leader.child(), next.get().child()));
            if (i >= o.handoverWarmup()) {
              say(String.format("handover %s trial %d: %.2f ms, hops %s", k.label(), i, ms,
                  hops.add(resign.nanos(), next.get().nanos(), marks.get(0), marks.get(1))));
            }
          }
        }
        EtcdMetrics.Sample m2 = EtcdMetrics.scrape(etcd.clientEndpoints());
        EtcdMetrics.Rates rates = EtcdMetrics.Rates.between(m1, m2);
        r.proposalsPerHandover.put(k, (double) rates.proposalCount() / total);
      }
      Stats s = Stats.of(samples);
      say(String.format("handover %s: n=%d p50 %.1f ms p99 %.1f ms", k.label(), s.n(), s.p50(), s.p99()));
    });
  }

  /**
   * drainTraces asks every child for its handover-trace marks (each JVM drains what it recorded
   * since the last ask) and returns those of {@code wanted}, in that order.
   */
  private static List<List<HandoverHops.Mark>> drainTraces(Group g, List<Group.Child> wanted) throws Exception {
    int mark = g.mark();
    for (Group.Child c : g.children()) {
      c.sendQuietly("trace");
    }
    for (Group.Child c : g.children()) {
      if (c.isAlive()) {
        g.await(mark, e -> e.is("TRACE_END") && e.child() == c, WAIT);
      }
    }
    List<List<HandoverHops.Mark>> out = new ArrayList<>();
    for (Group.Child c : wanted) {
      List<HandoverHops.Mark> l = new ArrayList<>();
      for (int i = mark; ; i++) {
        Optional<Group.Ev> e = g.find(i, x -> x.child() == c && (x.is("TRACE") || x.is("TRACE_END")), Duration.ZERO);
        if (e.isEmpty() || e.get().is("TRACE_END")) {
          break;
        }
        l.add(new HandoverHops.Mark(dev.leasehold.runtime.HandoverTrace.Hop.valueOf(e.get().detail()),
            e.get().nanos()));
        i = e.get().seq();
      }
      out.add(l);
    }
    return out;
  }

  // ---- crash failover ----

  private void crash() throws Exception {
    for (int ttl : o.crashTtls()) {
      Map<Kind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(Kind.class));
      r.crash.put(ttl, byKind);
      each(o.contenders(), k -> {
        List<Double> samples = Collections.synchronizedList(new ArrayList<>());
        byKind.put(k, samples);
        try (Group g = new Group(o.logDir().resolve("crash-ttl" + ttl))) {
          String key = key("crash", k);
          List<String> eps = etcd.clientEndpoints();
          startCandidates(g, k, key, ttl, o.candidates(), eps, "c");
          g.awaitLeader(WAIT);
          settle();
          // Handovers warm the candidates' code paths up before the first kill.
          for (int w = 0; w < o.crashWarmup(); w++) {
            Group.Ev l = g.awaitLeader(WAIT);
            int mark = g.mark();
            l.child().send("resign");
            g.await(mark, e -> e.is("ELECTED") && e.child() != l.child(), WAIT);
          }
          int spare = o.candidates();
          for (int i = 0; i < o.crashTrials(); i++) {
            Group.Ev leader = g.awaitLeader(WAIT);
            // Kill at a random point of the leader's renewal cycle.
            Thread.sleep(ThreadLocalRandom.current().nextLong(ttl * 500L) + 100);
            leader = g.awaitLeader(WAIT);
            Group.Child victim = leader.child();
            int mark = g.mark();
            long t0 = System.nanoTime();
            victim.kill();
            // The replacement starts now, while the lease runs out, so every trial starts with
            // the same number of candidates without waiting for a JVM start in between.
            Group.Child fresh = i == o.crashTrials() - 1 ? null : launchCandidate(g, k, key, ttl, eps, "c" + spare++);
            Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
                Duration.ofSeconds(3L * ttl + 10));
            if (next.isEmpty()) {
              r.problems.add("crash " + k.label() + " TTL " + ttl + " s trial " + i + ": no new leader");
            } else {
              samples.add((next.get().nanos() - t0) / 1e6);
            }
            if (fresh != null) {
              g.await(mark, e -> e.is("READY") && e.child() == fresh, WAIT);
            }
          }
        }
        Stats s = Stats.of(samples);
        say(String.format("crash %s TTL %d s: n=%d p50 %.0f ms p99 %.0f ms", k.label(), ttl, s.n(), s.p50(), s.p99()));
      });
    }
  }

  // ---- partition of the leader from etcd ----

  private void partition() throws Exception {
    int ttl = o.partitionTtl();
    double capMs = (3.0 * ttl + 5) * 1000;
    each(o.contenders(), k -> {
      List<Results.PartitionTrial> trials = Collections.synchronizedList(new ArrayList<>());
      r.partition.put(k, trials);
      Map<Group.Child, ClientProxies> proxies = new LinkedHashMap<>();
      try (Group g = new Group(o.logDir().resolve("partition"))) {
        String key = key("partition", k);
        List<Integer> ports = etcd.members().stream().map(m -> m.clientPort()).toList();
        for (int i = 0; i < o.candidates(); i++) {
          ClientProxies ps = ClientProxies.start(k.name().toLowerCase() + "-p" + i, ports);
          Group.Child c = launchCandidate(g, k, key, ttl, ps.endpoints(), "p" + i);
          proxies.put(c, ps);
        }
        for (Group.Child c : proxies.keySet()) {
          g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
        }
        g.awaitLeader(WAIT);
        settle();
        for (int i = 0; i < o.partitionTrials(); i++) {
          Thread.sleep(ThreadLocalRandom.current().nextLong(ttl * 1000L / 3) + 200);
          Group.Ev leader = g.awaitLeader(WAIT);
          Group.Child victim = leader.child();
          int mark = g.mark();
          long t0 = System.nanoTime();
          proxies.get(victim).cut(TcpProxy.Mode.BLACKHOLE);
          Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
              Duration.ofMillis((long) capMs));
          long until = next.map(e -> e.nanos()).orElse(t0) + (long) (capMs * 1e6);
          Optional<Group.Ev> down = g.find(mark, e -> e.is("LOST") && e.child() == victim,
              Duration.ofNanos(Math.max(0, until - System.nanoTime())));
          proxies.get(victim).heal();
          if (next.isEmpty()) {
            r.problems.add("partition " + k.label() + " trial " + i + ": no new leader within " + capMs + " ms");
            continue;
          }
          double electedMs = (next.get().nanos() - t0) / 1e6;
          double downMs = down.map(e -> (e.nanos() - t0) / 1e6).orElse(electedMs + capMs);
          trials.add(new Results.PartitionTrial(electedMs, downMs, down.isPresent(), capMs));
          if (down.isEmpty()) {
            // It must step down once healed before it can count as a follower again.
            g.find(mark, e -> e.is("LOST") && e.child() == victim, Duration.ofSeconds(3L * ttl + 10));
          }
          say(String.format("partition %s trial %d: new leader %.0f ms, step-down %s, window %s", k.label(), i,
              electedMs, down.isPresent() ? String.format("%.0f ms", downMs) : "never",
              down.isPresent() ? String.format("%+.0f ms", downMs - electedMs) : "n/a"));
        }
      } finally {
        proxies.values().forEach(ClientProxies::close);
      }
    });
  }

  // ---- scale ----

  private void scale() throws Exception {
    scaleRun("shared client", o.scaleCount(), true, true);
    scaleRun("shared client, standbyLease off", o.scaleCount(), true, false);
    if (o.scaleOwnClientCount() > 0) {
      scaleRun("one client per elector", o.scaleOwnClientCount(), false, true);
    }
  }

  private void scaleRun(String mode, int n, boolean shared, boolean standby) throws Exception {
    List<String> eps = etcd.clientEndpoints();
    awaitNoLeases("scale " + mode);
    Map<String, String> values = new LinkedHashMap<>();
    EtcdMetrics.Rates idle = null;
    EtcdMetrics.Rates idleLater = null;
    double perHandover = Double.NaN;
    String failure = null;
    try (Group g = new Group(o.logDir().resolve("scale"))) {
      Group.Child c = g.launch("scale-" + (shared ? "shared" : "own") + (standby ? "" : "-nostandby") + "-" + n,
          ScaleMain.class.getName(),
          List.of("-Xmx6g", "-XX:+UseSerialGC", "-Xss256k"),
          List.of("--endpoints=" + String.join(",", eps), "--key=" + key("scale", Kind.LEASEHOLD),
              "--count=" + n, "--shared-client=" + shared, "--standby=" + standby,
              "--ttl-seconds=" + o.scaleTtl(),
              "--handovers=" + o.scaleHandovers(), "--settle-ms=" + o.groupSettleMillis()));
      Duration long_ = Duration.ofMinutes(5);
      g.await(0, e -> e.is("LINE") && e.detail().equals("SETTLED") || e.is("EXITED"), long_);
      EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
      Thread.sleep(o.idleWindowSeconds() * 1000L);
      EtcdMetrics.Sample s2 = EtcdMetrics.scrape(eps);
      idle = EtcdMetrics.Rates.between(s1, s2);
      // A second window tells start-up leftovers (leases expiring once) from a steady cost.
      Thread.sleep(o.idleWindowSeconds() * 1000L);
      EtcdMetrics.Sample s2b = EtcdMetrics.scrape(eps);
      idleLater = EtcdMetrics.Rates.between(s2, s2b);
      s2 = s2b;
      c.send("handover");
      g.await(0, e -> e.is("LINE") && e.detail().startsWith("RESULT handover_ms") || e.is("EXITED"), long_);
      EtcdMetrics.Sample s3 = EtcdMetrics.scrape(eps);
      if (o.scaleHandovers() > 0) {
        perHandover = (s3.proposals() - s2.proposals()) / o.scaleHandovers();
      }
      c.send("failover");
      g.await(0, e -> e.is("LINE") && e.detail().startsWith("RESULT failover_all_know_ms") || e.is("EXITED"), long_);
      EtcdMetrics.Sample s4 = EtcdMetrics.scrape(eps);
      values.put("proposals_per_failover", String.format("%.0f", s4.proposals() - s3.proposals()));
      g.await(0, e -> e.is("LINE") && e.detail().equals("DONE") || e.is("EXITED"), long_);
      values.put("leases_left_after_close", Integer.toString(EtcdMetrics.leases(eps.get(0))));
      for (int i = 0; ; i++) {
        Optional<Group.Ev> line = g.find(i, e -> e.is("LINE") && e.detail().startsWith("RESULT "), Duration.ZERO);
        if (line.isEmpty()) {
          break;
        }
        String[] f = line.get().detail().split(" ", 3);
        values.put(f[1], f.length > 2 ? f[2] : "");
        i = line.get().seq();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      failure = e.toString();
      r.problems.add("scale " + mode + " x" + n + ": " + e);
    }
    r.scale.add(new Results.ScaleRun(mode, n, values, idle, idleLater, perHandover, failure));
    say("scale " + mode + " x" + n + ": " + values
        + (idle == null ? "" : String.format(" idle %.2f proposals/s, msgs/s by method %s", idle.proposalsPerSec(),
            idle.messagesPerSecByMethod()))
        + (idleLater == null ? "" : String.format("; next window %.2f proposals/s, msgs/s by method %s",
            idleLater.proposalsPerSec(), idleLater.messagesPerSecByMethod())));
  }

  // ---- helpers ----

  /**
   * awaitNoLeases waits until etcd holds no lease (earlier scenarios' leases expire within their
   * TTL), so that an idle window only sees the traffic of the candidates it measures.
   */
  private void awaitNoLeases(String before) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    int left;
    while ((left = EtcdMetrics.leases(etcd.clientEndpoints().get(0))) > 0 && System.nanoTime() < end) {
      Thread.sleep(250);
    }
    if (left > 0) {
      r.problems.add(before + ": " + left + " leases of earlier scenarios still alive after 15 s");
    }
  }

  private interface PerKind {
    void run(Kind k) throws Exception;
  }

  /**
   * each runs {@code body} for every contender, one after the other; with {@code --parallel}
   * (the smoke test's setting, where only the presence of numbers matters) all at once.
   */
  private void each(List<Kind> kinds, PerKind body) throws Exception {
    if (!o.parallel()) {
      for (Kind k : kinds) {
        body.run(k);
      }
      return;
    }
    ExecutorService ex = Executors.newFixedThreadPool(kinds.size());
    try {
      List<Future<Object>> fs = new ArrayList<>();
      for (Kind k : kinds) {
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

  private List<Kind> withVariants() {
    List<Kind> all = new ArrayList<>(o.contenders());
    o.variants().stream().filter(v -> !all.contains(v)).forEach(all::add);
    return all;
  }

  /**
   * settle gives every candidate time to join after the first election (a jetcd candidate
   * not yet queued when the leader resigns lets the resigner win again).
   */
  private void settle() throws InterruptedException {
    Thread.sleep(o.groupSettleMillis());
  }

  private void startCandidates(Group g, Kind k, String key, int ttl, int n, List<String> eps, String prefix)
      throws Exception {
    List<Group.Child> cs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      cs.add(launchCandidate(g, k, key, ttl, eps, prefix + i));
    }
    for (Group.Child c : cs) {
      g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
    }
  }

  private Group.Child launchCandidate(Group g, Kind k, String key, int ttl, List<String> eps, String id) {
    return g.launch(k.name().toLowerCase() + "-" + id + "-" + UUID.randomUUID().toString().substring(0, 4),
        ContenderMain.class.getName(), o.childJvm(), contenderArgs(k, eps, key, id, ttl, 1));
  }

  private static List<String> contenderArgs(Kind k, List<String> eps, String key, String id, int ttl, int count) {
    return List.of("--kind=" + k.name(), "--endpoints=" + String.join(",", eps), "--key=" + key,
        "--id=" + id, "--ttl-seconds=" + ttl, "--count=" + count);
  }

  private static String key(String scenario, Kind k) {
    return "/leasehold-bench/" + scenario + "/" + k.name().toLowerCase() + "/" + UUID.randomUUID();
  }

  static void say(String s) {
    System.out.println("[bench] " + s);
  }
}
