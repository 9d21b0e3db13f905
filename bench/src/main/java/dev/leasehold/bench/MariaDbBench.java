package dev.leasehold.bench;

import dev.leasehold.bench.contender.JdbcContenderMain;
import dev.leasehold.bench.contender.JdbcKind;
import dev.leasehold.it.chaos.TcpProxy;
import dev.leasehold.it.mariadb.MariaDbServer;
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

/**
 * MariaDbBench runs the MariaDB phases against one private mariadbd it starts itself (durable
 * commits: {@code innodb_flush_log_at_trx_commit = 1}, which Leasehold requires by default), for
 * every JDBC contender, and collects the figures in {@link MariaDbResults}. The scenarios are
 * {@link Bench}'s: graceful handover, crash failover, a partition of the leader, idle cost.
 *
 * <p>Not thread-safe.
 */
final class MariaDbBench {
  /** PHASES are the names {@code --phases} takes for this bench; {@code mariadb} selects them all. */
  static final List<String> PHASES = List.of("mariadb-idle", "mariadb-handover", "mariadb-crash", "mariadb-partition");

  private static final Duration WAIT = Duration.ofSeconds(30);
  /** HANDOVER_PAUSE_MILLIS separates handovers: Leasehold's poll interval (1 s) plus 150 ms. */
  static final int HANDOVER_PAUSE_MILLIS = 1150;

  private final Bench.Options o;
  private final MariaDbResults.Options m;
  private final MariaDbResults r;
  private MariaDbServer db;

  MariaDbBench(Bench.Options options, MariaDbResults results) {
    this.o = options;
    this.m = results.options;
    this.r = results;
  }

  /** wanted tells whether {@code phases} names any MariaDB phase. */
  static boolean wanted(List<String> phases) {
    return phases.contains("mariadb") || phases.stream().anyMatch(PHASES::contains);
  }

  /** run starts mariadbd, runs the chosen phases and stops everything it started. */
  void run() throws Exception {
    Bench.say("starting mariadbd");
    try (MariaDbServer server =
        MariaDbServer.builder().name("bench").option("--innodb-flush-log-at-trx-commit=1").start()) {
      db = server;
      r.serverVersion = server.sql("SELECT VERSION()").get(0).get(0);
      r.serverFlags = "innodb_flush_log_at_trx_commit = "
          + server.sql("SELECT @@innodb_flush_log_at_trx_commit").get(0).get(0) + ", max_connections = "
          + server.sql("SELECT @@max_connections").get(0).get(0);
      Bench.say("mariadbd up: " + server.jdbcUrl() + " (" + r.serverVersion + ")");
      phase("mariadb-idle", this::idle);
      phase("mariadb-handover", this::handover);
      phase("mariadb-crash", this::crash);
      phase("mariadb-partition", this::partition);
    }
  }

  private interface Phase {
    void run() throws Exception;
  }

  private void phase(String name, Phase p) {
    if (!o.phases().contains(name) && !o.phases().contains("mariadb")) {
      return;
    }
    long t = System.nanoTime();
    Bench.say("== " + name);
    try {
      p.run();
    } catch (Exception e) {
      r.problems.add(name + ": phase aborted: " + e);
      Bench.say(name + " aborted: " + e);
    }
    Bench.say(String.format("== %s done in %.0f s", name, (System.nanoTime() - t) / 1e9));
  }

  // ---- idle cost ----

  private void idle() throws Exception {
    Status a = status();
    Thread.sleep(o.idleWindowSeconds() * 1000L);
    r.idleBaseline = a.rates(status());
    Bench.say(String.format("idle baseline: %.2f questions/s", r.idleBaseline.questionsPerSec()));
    each(k -> {
      Map<Integer, MariaDbResults.Idle> byCount = Collections.synchronizedMap(new TreeMap<>());
      r.idle.put(k, byCount);
      for (int n : m.idleCounts()) {
        try (Group g = new Group(o.logDir().resolve("mariadb-idle"))) {
          List<String> jvm = new ArrayList<>(o.childJvm());
          if (n > 20) {
            jvm.add("-Xmx1g");
          }
          Group.Child c = g.launch(k.name().toLowerCase() + "-idle-" + n, JdbcContenderMain.class.getName(), jvm,
              args(k, db.jdbcUrl(), key("idle", k), "idle", m.idleTtlMillis(), n));
          g.await(0, e -> e.is("READY"), Duration.ofSeconds(60));
          g.await(0, e -> e.is("ELECTED"), Duration.ofSeconds(60));
          Thread.sleep(o.idleSettleSeconds() * 1000L);
          int mark = g.mark();
          Status s1 = status();
          Thread.sleep(o.idleWindowSeconds() * 1000L);
          MariaDbResults.Idle rates = s1.rates(status());
          if (g.find(mark, e -> e.is("LOST") || e.is("ELECTED"), Duration.ZERO).isPresent()) {
            r.problems.add("idle " + k.label() + " x" + n + ": leadership changed during the window");
          }
          byCount.put(n, rates);
          Bench.say(String.format("idle %s x%d: %.1f questions/s (%d connections)", k.label(), n,
              rates.questionsPerSec(), rates.connections()));
          c.close(Duration.ofSeconds(15));
        }
      }
    });
  }

  // ---- graceful handover ----

  private void handover() throws Exception {
    each(k -> {
      List<Double> samples = Collections.synchronizedList(new ArrayList<>());
      r.handover.put(k, samples);
      try (Group g = new Group(o.logDir().resolve("mariadb-handover"))) {
        String key = key("handover", k);
        List<Group.Child> cs = new ArrayList<>();
        for (int i = 0; i < o.candidates(); i++) {
          cs.add(launch(g, k, db.jdbcUrl(), key, m.handoverTtlMillis(), "h" + i));
        }
        awaitReady(g, cs);
        g.awaitLeader(WAIT);
        Thread.sleep(o.groupSettleMillis());
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
          if (i >= o.handoverWarmup()) {
            samples.add((next.get().nanos() - resign.nanos()) / 1e6);
          }
          g.await(mark, e -> e.is("LOST") && e.child() == leader.child(), WAIT);
          // Longer than etcd's 150-250 ms: a candidate that resigned sees the row released, has no
          // lock to wait on, and learns of the next leader (which ends its hold-off) at its next
          // poll, 1 s later. Without this pause every follower would still sit out its hold-off.
          Thread.sleep(HANDOVER_PAUSE_MILLIS + ThreadLocalRandom.current().nextInt(100));
        }
      }
      Stats s = Stats.of(samples);
      Bench.say(String.format("handover %s: n=%d p50 %.1f ms p99 %.1f ms", k.label(), s.n(), s.p50(), s.p99()));
    });
  }

  // ---- crash failover ----

  private void crash() throws Exception {
    for (int ttl : m.crashTtlsMillis()) {
      Map<JdbcKind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(JdbcKind.class));
      r.crash.put(ttl, byKind);
      each(k -> {
        List<Double> samples = Collections.synchronizedList(new ArrayList<>());
        byKind.put(k, samples);
        try (Group g = new Group(o.logDir().resolve("mariadb-crash-ttl" + ttl))) {
          String key = key("crash", k);
          List<Group.Child> cs = new ArrayList<>();
          for (int i = 0; i < o.candidates(); i++) {
            cs.add(launch(g, k, db.jdbcUrl(), key, ttl, "c" + i));
          }
          awaitReady(g, cs);
          g.awaitLeader(WAIT);
          Thread.sleep(o.groupSettleMillis());
          int spare = o.candidates();
          for (int i = 0; i < o.crashTrials(); i++) {
            g.awaitLeader(WAIT);
            // Kill at a random point of the leader's renewal cycle.
            Thread.sleep(ThreadLocalRandom.current().nextLong(ttl / 2) + 100);
            Group.Child victim = g.awaitLeader(WAIT).child();
            int mark = g.mark();
            long t0 = System.nanoTime();
            victim.kill();
            // The replacement joins while the old term runs out, as in the etcd bench.
            Group.Child fresh = i == o.crashTrials() - 1 ? null
                : launch(g, k, db.jdbcUrl(), key, ttl, "c" + spare++);
            Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
                Duration.ofMillis(3L * ttl + 10_000));
            if (next.isEmpty()) {
              r.problems.add("crash " + k.label() + " TTL " + ttl + " ms trial " + i + ": no new leader");
            } else {
              samples.add((next.get().nanos() - t0) / 1e6);
            }
            if (fresh != null) {
              g.await(mark, e -> e.is("READY") && e.child() == fresh, WAIT);
            }
          }
        }
        Stats s = Stats.of(samples);
        Bench.say(String.format("crash %s TTL %d ms: n=%d p50 %.0f ms p99 %.0f ms", k.label(), ttl, s.n(),
            s.p50(), s.p99()));
      });
    }
  }

  // ---- partition of the leader from mariadbd ----

  private void partition() throws Exception {
    int ttl = m.partitionTtlMillis();
    double capMs = 3.0 * ttl + 5000;
    each(k -> {
      List<Results.PartitionTrial> trials = Collections.synchronizedList(new ArrayList<>());
      r.partition.put(k, trials);
      Map<Group.Child, TcpProxy> proxies = new LinkedHashMap<>();
      try (Group g = new Group(o.logDir().resolve("mariadb-partition"))) {
        String key = key("partition", k);
        for (int i = 0; i < o.candidates(); i++) {
          TcpProxy p = TcpProxy.start("mariadb-" + k.name().toLowerCase() + "-p" + i, db.port());
          String url = "jdbc:mariadb://127.0.0.1:" + p.port() + "/" + MariaDbServer.DATABASE;
          proxies.put(launch(g, k, url, key, ttl, "p" + i), p);
        }
        awaitReady(g, new ArrayList<>(proxies.keySet()));
        g.awaitLeader(WAIT);
        Thread.sleep(o.groupSettleMillis());
        for (int i = 0; i < m.partitionTrials(); i++) {
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
            r.problems.add("partition " + k.label() + " trial " + i + ": no new leader within " + capMs + " ms");
            g.find(mark, e -> e.is("LOST") && e.child() == victim, Duration.ofMillis(3L * ttl + 10_000));
            continue;
          }
          double electedMs = (next.get().nanos() - t0) / 1e6;
          double downMs = down.map(e -> (e.nanos() - t0) / 1e6).orElse(electedMs + capMs);
          trials.add(new Results.PartitionTrial(electedMs, downMs, down.isPresent(), capMs));
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
    });
  }

  // ---- helpers ----

  /** Status is one read of the server's statement counters, with the local time it was taken. */
  private record Status(long nanos, Map<String, Long> counters) {
    long get(String name) {
      return counters.getOrDefault(name, 0L);
    }

    MariaDbResults.Idle rates(Status later) {
      double s = (later.nanos - nanos) / 1e9;
      return new MariaDbResults.Idle((later.get("Questions") - get("Questions")) / s,
          (later.get("Queries") - get("Queries")) / s, (later.get("Com_select") - get("Com_select")) / s,
          (later.get("Com_update") - get("Com_update")) / s, (int) later.get("Threads_connected"));
    }
  }

  private Status status() {
    long t = System.nanoTime();
    Map<String, Long> c = new LinkedHashMap<>();
    for (List<String> row : db.sql("SHOW GLOBAL STATUS WHERE Variable_name IN "
        + "('Questions', 'Queries', 'Com_select', 'Com_update', 'Threads_connected')")) {
      c.put(row.get(0), Long.parseLong(row.get(1)));
    }
    return new Status(t, c);
  }

  private interface PerKind {
    void run(JdbcKind k) throws Exception;
  }

  /** each runs {@code body} per contender, one after the other; with {@code --parallel} all at once. */
  private void each(PerKind body) throws Exception {
    if (!o.parallel()) {
      for (JdbcKind k : m.contenders()) {
        body.run(k);
      }
      return;
    }
    ExecutorService ex = Executors.newFixedThreadPool(m.contenders().size());
    try {
      List<Future<Object>> fs = new ArrayList<>();
      for (JdbcKind k : m.contenders()) {
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

  private static void awaitReady(Group g, List<Group.Child> cs) throws Exception {
    for (Group.Child c : cs) {
      g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
    }
  }

  private Group.Child launch(Group g, JdbcKind k, String url, String key, int ttlMillis, String id) {
    return g.launch(k.name().toLowerCase() + "-" + id + "-" + UUID.randomUUID().toString().substring(0, 4),
        JdbcContenderMain.class.getName(), o.childJvm(), args(k, url, key, id, ttlMillis, 1));
  }

  private List<String> args(JdbcKind k, String url, String key, String id, int ttlMillis, int count) {
    return List.of("--kind=" + k.name(), "--url=" + url, "--user=" + db.rootUser(),
        "--password=" + db.rootPassword(), "--key=" + key, "--id=" + id, "--ttl-millis=" + ttlMillis,
        "--count=" + count);
  }

  /** key is a fresh election name, valid as a lease row's name and, under 64 characters, as a lock's. */
  private static String key(String scenario, JdbcKind k) {
    return "bench." + scenario + "." + k.name().toLowerCase() + "." + UUID.randomUUID().toString().substring(0, 8);
  }
}
