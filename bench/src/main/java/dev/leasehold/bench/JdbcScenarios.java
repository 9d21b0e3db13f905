package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcContenderMain;
import dev.leasehold.bench.contender.JdbcKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import dev.leasehold.it.chaos.TcpProxy;

/**
 * JdbcScenarios runs the scenarios the SQL benches share against one server, for one JDBC contender at a time:
 * graceful handover, crash failover and a partition of the leader, of candidate JVMs ({@link JdbcContenderMain}),
 * and their launch. The MariaDB
 * and PostgreSQL benches differ only in the server, the account and the contenders they name.
 *
 * <p>Not thread-safe, except {@link #each} with {@code --parallel}, whose bodies only append to synchronized lists.
 */
final class JdbcScenarios {
  /** HANDOVER_PAUSE_MILLIS separates handovers: Leasehold's poll interval (1 s) plus 150 ms. */
  static final int HANDOVER_PAUSE_MILLIS = 1150;

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Bench.Options o;
  private final String user;
  private final String password;
  private final List<String> problems;

  /** JdbcScenarios launches candidates that log in as {@code user}; failed trials go to {@code problems}. */
  JdbcScenarios(Bench.Options options, String user, String password, List<String> problems) {
    this.o = options;
    this.user = user;
    this.password = password;
    this.problems = problems;
  }

  /** Phase is one named part of a SQL bench. */
  interface Phase {
    void run() throws Exception;
  }

  /**
   * phase runs {@code body} when {@code phases} names it or its whole {@code group}, timing it; a phase that throws
   * is recorded in {@code problems} and the bench goes on with the next.
   */
  static void phase(List<String> phases, String group, String name, List<String> problems, Phase body) {
    if (!phases.contains(name) && !phases.contains(group)) {
      return;
    }
    long t = System.nanoTime();
    Bench.say("== " + name);
    try {
      body.run();
    } catch (Exception e) {
      problems.add(name + ": phase aborted: " + e);
      Bench.say(name + " aborted: " + e);
    }
    Bench.say(String.format("== %s done in %.0f s", name, (System.nanoTime() - t) / 1e9));
  }

  /** each runs {@code body} per contender, one after the other; with {@code --parallel} all at once. */
  void each(List<JdbcKind> kinds, Bench.PerContender<JdbcKind> body) throws Exception {
    Bench.each(o.parallel(), kinds, body);
  }

  /**
   * handover measures graceful handovers among {@code candidates} JVMs of {@code k} on {@code url}: t0 just before
   * the leader's JVM calls resign(), end at the next leader's elected callback; returns the recorded samples (ms).
   * With {@code hops} (Leasehold's own kind), the JVMs run with {@code -Dleasehold.trace=true} and each recorded
   * handover's statements, hop by hop, go into it.
   */
  List<Double> handover(JdbcKind k, String url, int ttlMillis, Path logDir, HandoverHops hops) throws Exception {
    List<Double> samples = Collections.synchronizedList(new ArrayList<>());
    try (Group g = new Group(logDir)) {
      String key = key("handover", k);
      List<String> jvm = hops == null ? List.of() : List.of("-Dleasehold.trace=true");
      List<Group.Child> cs = new ArrayList<>();
      for (int i = 0; i < o.candidates(); i++) {
        cs.add(launch(g, k, url, key, ttlMillis, "h" + i, jvm));
      }
      awaitReady(g, cs);
      g.awaitLeader(WAIT);
      Thread.sleep(o.groupSettleMillis());
      int total = o.handoverWarmup() + o.handoverTrials();
      for (int i = 0; i < total; i++) {
        // Every candidate follows before t0: a JVM still starting (its first read not yet made) would be measured
        // at its first poll, not at the wake-up.
        for (Group.Child c : g.awaitSettled(cs, WAIT)) {
          problems.add("handover " + k.label() + " trial " + i + ": " + c.label() + " did not know the leader within "
              + "its settle bound");
        }
        Group.Ev leader = g.awaitLeader(WAIT);
        int mark = g.mark();
        leader.child().send("resign");
        Group.Ev resign = g.await(mark, e -> e.is("RESIGN") && e.child() == leader.child(), WAIT);
        Optional<Group.Ev> next = g.find(mark,
            e -> e.is("ELECTED") && e.child() != leader.child() && e.nanos() > resign.nanos(), WAIT);
        if (next.isEmpty()) {
          problems.add("handover " + k.label() + " trial " + i + ": no new leader within " + WAIT);
          continue;
        }
        double ms = (next.get().nanos() - resign.nanos()) / 1e6;
        if (i >= o.handoverWarmup()) {
          samples.add(ms);
        }
        g.await(mark, e -> e.is("LOST") && e.child() == leader.child(), WAIT);
        // Longer than etcd's 150-250 ms: a Leasehold candidate that resigned sees the row released, has no
        // lock to wait on, and learns of the next leader (which ends its hold-off) at its next poll, 1 s
        // later. Without this pause every follower would still sit out its hold-off.
        Thread.sleep(HANDOVER_PAUSE_MILLIS + ThreadLocalRandom.current().nextInt(100));
        if (hops != null) {
          List<List<HandoverHops.Mark>> marks = HandoverHops.drain(g, List.of(leader.child(), next.get().child()));
          if (i >= o.handoverWarmup()) {
            Bench.say(String.format("handover %s trial %d: %.2f ms, hops %s", k.label(), i, ms,
                hops.add(resign.nanos(), next.get().nanos(), marks.get(0), marks.get(1))));
          }
        }
      }
    }
    Stats s = Stats.of(samples);
    Bench.say(String.format("handover %s: n=%d p50 %.1f ms p99 %.1f ms", k.label(), s.n(), s.p50(), s.p99()));
    return samples;
  }

  /**
   * crash measures crash failovers: the leader's JVM is SIGKILLed at a random point of its renewal cycle (t0 just
   * before the kill) until the next leader's elected callback, and a fresh candidate JVM joins after each kill;
   * returns the recorded samples (ms).
   */
  List<Double> crash(JdbcKind k, String url, int ttlMillis, Path logDir) throws Exception {
    List<Double> samples = Collections.synchronizedList(new ArrayList<>());
    try (Group g = new Group(logDir)) {
      String key = key("crash", k);
      startElected(g, k, url, key, ttlMillis, "c");
      int spare = o.candidates();
      for (int i = 0; i < o.crashTrials(); i++) {
        g.awaitLeader(WAIT);
        Thread.sleep(ThreadLocalRandom.current().nextLong(ttlMillis / 2) + 100);
        Group.Child victim = g.awaitLeader(WAIT).child();
        int mark = g.mark();
        long t0 = System.nanoTime();
        victim.kill();
        // The replacement joins while the old term runs out, as in the etcd bench.
        Group.Child fresh = i == o.crashTrials() - 1 ? null : launch(g, k, url, key, ttlMillis, "c" + spare++);
        Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
            Duration.ofMillis(3L * ttlMillis + 10_000));
        if (next.isEmpty()) {
          problems.add("crash " + k.label() + " TTL " + ttlMillis + " ms trial " + i + ": no new leader");
        } else {
          samples.add((next.get().nanos() - t0) / 1e6);
        }
        if (fresh != null) {
          g.await(mark, e -> e.is("READY") && e.child() == fresh, WAIT);
        }
      }
    }
    Stats s = Stats.of(samples);
    Bench.say(String.format("crash %s TTL %d ms: n=%d p50 %.0f ms p99 %.0f ms", k.label(), ttlMillis, s.n(),
        s.p50(), s.p99()));
    return samples;
  }

  /**
   * startElected launches the run's number of candidate JVMs (ids {@code prefix0}, {@code prefix1}, ...), waits
   * until all are ready and one leads, then lets the group settle.
   */
  private void startElected(Group g, JdbcKind k, String url, String key, int ttlMillis, String prefix)
      throws Exception {
    List<Group.Child> cs = new ArrayList<>();
    for (int i = 0; i < o.candidates(); i++) {
      cs.add(launch(g, k, url, key, ttlMillis, prefix + i));
    }
    awaitReady(g, cs);
    g.awaitLeader(WAIT);
    Thread.sleep(o.groupSettleMillis());
  }

  /** awaitReady waits until every child has printed READY. */
  static void awaitReady(Group g, List<Group.Child> cs) throws Exception {
    for (Group.Child c : cs) {
      g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
    }
  }

  /** launch starts one candidate JVM of {@code k} on {@code url}. */
  Group.Child launch(Group g, JdbcKind k, String url, String key, int ttlMillis, String id) {
    return launch(g, k, url, key, ttlMillis, id, List.of());
  }

  /** launch starts one candidate JVM of {@code k} on {@code url} with {@code jvm} added to its JVM options. */
  Group.Child launch(Group g, JdbcKind k, String url, String key, int ttlMillis, String id, List<String> jvm) {
    List<String> options = new ArrayList<>(o.childJvm());
    options.addAll(jvm);
    return g.launch(k.name().toLowerCase() + "-" + id + "-" + UUID.randomUUID().toString().substring(0, 4),
        JdbcContenderMain.class.getName(), options, args(k, url, key, id, ttlMillis, 1));
  }

  /** args are {@link JdbcContenderMain}'s arguments for {@code count} candidates in one JVM. */
  List<String> args(JdbcKind k, String url, String key, String id, int ttlMillis, int count) {
    return List.of("--kind=" + k.name(), "--url=" + url, "--user=" + user, "--password=" + password,
        "--key=" + key, "--id=" + id, "--ttl-millis=" + ttlMillis, "--count=" + count);
  }

  /** key is a fresh election name, valid as a lease row's name and, under 64 characters, as a lock's. */
  static String key(String scenario, JdbcKind k) {
    return "bench." + scenario + "." + k.name().toLowerCase() + "." + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * partition measures the stale-leader window under {@code trials} partitions of the leader: each of
   * {@code candidates} JVMs of {@code k} reaches the server (at {@code serverPort}) only through its own
   * {@link TcpProxy}, whose port {@code urlVia} turns into a JDBC URL; at t0 the leader's proxy starts dropping
   * every byte both ways. Returns one trial per partition that elected a new leader within 3 × TTL + 5 s.
   */
  List<Results.PartitionTrial> partition(JdbcKind k, int serverPort, IntFunction<String> urlVia, int ttl,
      int trials, Path logDir) throws Exception {
    double capMs = 3.0 * ttl + 5000;
    List<Results.PartitionTrial> out = Collections.synchronizedList(new ArrayList<>());
    Map<Group.Child, TcpProxy> proxies = new LinkedHashMap<>();
    try (Group g = new Group(logDir)) {
      String key = key("partition", k);
      for (int i = 0; i < o.candidates(); i++) {
        TcpProxy p = TcpProxy.start(k.name().toLowerCase() + "-p" + i, serverPort);
        proxies.put(launch(g, k, urlVia.apply(p.port()), key, ttl, "p" + i), p);
      }
      awaitReady(g, new ArrayList<>(proxies.keySet()));
      g.awaitLeader(WAIT);
      Thread.sleep(o.groupSettleMillis());
      for (int i = 0; i < trials; i++) {
        Thread.sleep(ThreadLocalRandom.current().nextLong(ttl / 3) + 200);
        Group.Child victim = g.awaitLeader(WAIT).child();
        int mark = g.mark();
        long t0 = System.nanoTime();
        proxies.get(victim).setMode(TcpProxy.Mode.BLACKHOLE);
        Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
            Duration.ofMillis((long) capMs));
        long until = next.map(Group.Ev::nanos).orElse(t0) + (long) (capMs * 1e6);
        Optional<Group.Ev> down = g.find(mark, e -> e.is("LOST") && e.child() == victim,
            Duration.ofNanos(Math.max(0, until - System.nanoTime())));
        proxies.get(victim).setMode(TcpProxy.Mode.PASS);
        if (next.isEmpty()) {
          problems.add("partition " + k.label() + " trial " + i + ": no new leader within " + capMs + " ms");
          g.find(mark, e -> e.is("LOST") && e.child() == victim, Duration.ofMillis(3L * ttl + 10_000));
          continue;
        }
        double electedMs = (next.get().nanos() - t0) / 1e6;
        double downMs = down.map(e -> (e.nanos() - t0) / 1e6).orElse(electedMs + capMs);
        out.add(new Results.PartitionTrial(electedMs, downMs, down.isPresent(), capMs));
        if (down.isEmpty()) {
          g.find(mark, e -> e.is("LOST") && e.child() == victim, Duration.ofMillis(3L * ttl + 10_000));
        }
        Bench.say(String.format("partition %s trial %d: new leader %.0f ms, step-down %s, window %s", k.label(), i,
            electedMs, down.isPresent() ? String.format("%.0f ms (%s)", downMs, down.get().detail()) : "never",
            down.isPresent() ? String.format("%+.0f ms", downMs - electedMs) : "n/a"));
      }
    } finally {
      proxies.values().forEach(TcpProxy::close);
    }
    return out;
  }
}
