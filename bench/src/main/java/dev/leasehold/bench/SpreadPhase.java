package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.SpreadMember;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * SpreadPhase measures spreading (PROTOCOL.md §11.7): {@link #INSTANCES} instance JVMs ({@link
 * SpreadMember}), each a spreading session with the same {@link #ELECTIONS} elections, on the
 * run's cluster. It starts them together (the cold start), SIGKILLs one (a leave, taken up by
 * expiry), starts it again (a join), and for each reports the time until every election is led
 * and the leaderships differ by at most one (skew), the moves (puts of a key that keep its create
 * revision: a transfer), and the proposals etcd committed meanwhile. It watches etcd itself, so
 * the figures are etcd's. Its table goes into the run's report ({@link Results#spread}).
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread; the watch's callbacks only
 * touch the synchronized view.
 */
final class SpreadPhase extends BenchPhase {
  static final int INSTANCES = 5;
  static final int ELECTIONS = 1000;
  static final int TTL_SECONDS = 5;
  private static final Duration SETTLE = Duration.ofSeconds(60);

  // Election key -> holder id, and the moves and first put seen, from the watch.
  private final Map<String, String> holders = new HashMap<>();
  private int moves;
  private long firstPutAt;
  private String prefix;

  SpreadPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  /** Step is one measured step: how long to skew <= 1, the moves and proposals meanwhile. */
  record Step(String name, long millis, int moves, long proposals, String counts, String minimal) {}

  @Override
  void run() throws Exception {
    List<String> eps = etcd.clientEndpoints();
    awaitNoLeases("spread");
    prefix = key("spread", Kind.LEASEHOLD) + "/";
    List<Step> steps = new ArrayList<>();
    try (Client c = Client.builder().endpoints(eps.toArray(String[]::new)).build();
        Group g = new Group(o.logDir().resolve("spread"))) {
      ByteSequence p = ByteSequence.from(prefix + "shard-", StandardCharsets.UTF_8);
      Watch.Watcher w = c.getWatchClient().watch(p, WatchOption.builder().isPrefix(true).build(),
          resp -> resp.getEvents().forEach(this::seen));
      try {
        List<String> ids = new ArrayList<>();
        Group.Child[] children = new Group.Child[INSTANCES];
        long t0 = System.nanoTime();
        EtcdMetrics.Sample before = EtcdMetrics.scrape(eps);
        for (int i = 0; i < INSTANCES; i++) {
          ids.add("i" + i);
          children[i] = launch(g, eps, "i" + i);
        }
        steps.add(await("cold start of " + INSTANCES + " together", t0, before, eps, ids, 0,
            "0 (each campaigns for the elections it is preferred for)"));
        long firstLeaderMs = TimeUnit.NANOSECONDS.toMillis(firstPutAt - t0);
        say("spread: first leader " + firstLeaderMs + " ms after the launch (JVM start included)");

        String victim = ids.remove(ids.size() - 1);
        int heldByVictim = count(victim);
        before = EtcdMetrics.scrape(eps);
        int m0 = moves();
        long t1 = System.nanoTime();
        children[INSTANCES - 1].kill();
        steps.add(await("SIGKILL of " + victim + " (" + heldByVictim + " elections, taken up by expiry, TTL "
            + TTL_SECONDS + " s)", t1, before, eps, ids, m0, "0 (the freed elections are campaigned for)"));

        ids.add(victim);
        before = EtcdMetrics.scrape(eps);
        m0 = moves();
        long t2 = System.nanoTime();
        children[INSTANCES - 1] = launch(g, eps, victim);
        steps.add(await(victim + " joins again", t2, before, eps, ids, m0,
            Integer.toString(ELECTIONS / INSTANCES) + " (its share, from the others)"));
        r.spread = report(steps, firstLeaderMs);
        say("spread report:\n" + r.spread);
      } finally {
        w.close();
      }
    }
  }

  private Group.Child launch(Group g, List<String> eps, String id) throws Exception {
    Group.Child c = g.launch("spread-" + id, SpreadMember.class.getName(), o.childJvm(),
        List.of("--endpoints=" + String.join(",", eps), "--prefix=" + prefix, "--id=" + id,
            "--count=" + ELECTIONS, "--ttl-seconds=" + TTL_SECONDS));
    return c;
  }

  private synchronized void seen(WatchEvent e) {
    KeyValue kv = e.getKeyValue();
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    if (e.getEventType() == WatchEvent.EventType.PUT) {
      if (firstPutAt == 0) {
        firstPutAt = System.nanoTime();
      }
      if (kv.getCreateRevision() != kv.getModRevision()) {
        moves++;
      }
      holders.put(key, kv.getValue().toString(StandardCharsets.UTF_8));
    } else {
      holders.remove(key);
    }
  }

  private synchronized int moves() {
    return moves;
  }

  private synchronized int count(String id) {
    return (int) holders.values().stream().filter(id::equals).count();
  }

  /** counts is how many elections each of {@code ids} holds, or null unless all are led and skew <= 1. */
  private synchronized Map<String, Integer> spreadCounts(List<String> ids) {
    Map<String, Integer> n = new TreeMap<>();
    ids.forEach(id -> n.put(id, 0));
    for (String h : holders.values()) {
      n.computeIfPresent(h, (k, v) -> v + 1);
    }
    int total = n.values().stream().mapToInt(Integer::intValue).sum();
    int max = n.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = n.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    return total == ELECTIONS && max - min <= 1 ? n : null;
  }

  private Step await(String name, long t0, EtcdMetrics.Sample before, List<String> eps, List<String> ids,
      int movesBefore, String minimal) throws InterruptedException {
    long end = t0 + SETTLE.toNanos();
    Map<String, Integer> n;
    while ((n = spreadCounts(ids)) == null && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    // Moves still in flight when skew first reached 1 are counted too: wait one renewal more.
    Thread.sleep(TTL_SECONDS * 1000L / 3 + 500);
    long proposals = Math.round(EtcdMetrics.scrape(eps).proposals() - before.proposals());
    Step s = new Step(name, n == null ? -1 : ms, moves() - movesBefore, proposals,
        n == null ? "not spread within " + SETTLE.toSeconds() + " s: " + counts(ids) : n.toString(), minimal);
    if (n == null) {
      r.problems.add("spread: " + s.counts());
    }
    say("spread: " + s);
    return s;
  }

  private synchronized String counts(List<String> ids) {
    Map<String, Integer> n = new TreeMap<>();
    ids.forEach(id -> n.put(id, count(id)));
    return n + ", " + holders.size() + " led";
  }

  private static String report(List<Step> steps, long firstLeaderMs) {
    StringBuilder b = new StringBuilder();
    b.append("Targets: skew <= 1 within 2 x TTL (" + 2 * TTL_SECONDS + " s) of a join or leave; moves <= the fewest + 5 %;"
        + " 1 proposal per move. A step's time runs from its launch or SIGKILL (a JVM's start included) to every"
        + " election led with leaderships differing by at most 1; its proposals are etcd's committed proposals"
        + " from then until one renewal after.\n\n");
    b.append("| step | time to all led and skew <= 1 | moves | fewest moves | proposals in the step | leaderships |\n");
    b.append("|---|---|---|---|---|---|\n");
    for (Step s : steps) {
      b.append("| ").append(s.name()).append(" | ").append(s.millis() < 0 ? "not reached" : s.millis() + " ms")
          .append(" | ").append(s.moves()).append(" | ").append(s.minimal()).append(" | ").append(s.proposals())
          .append(" | ").append(s.counts()).append(" |\n");
    }
    b.append("\nFirst leader after the cold start's launch: ").append(firstLeaderMs).append(" ms (JVM start included).\n");
    return b.toString();
  }
}
