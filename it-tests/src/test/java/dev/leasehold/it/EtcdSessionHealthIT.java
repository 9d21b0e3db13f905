package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdSession;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Yield when unhealthy on spreading sessions (PROTOCOL.md §11.7) against a real one-member etcd:
 * a session whose health check turns false leaves the fleet and moves every election it leads to
 * the healthy members, evenly, each by the fenced move (its listeners see {@code UNHEALTHY});
 * healthy again it gets its share back; with no healthy member it keeps its terms and {@code
 * health()} says so, and hands them over once a healthy member comes.
 */
class EtcdSessionHealthIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final int N = 12;

  private Client outside;
  private final String prefix = "/it/health/";
  private final List<EtcdSession> sessions = new ArrayList<>();
  private final Map<EtcdSession, List<LeaderElector>> elections = new HashMap<>();
  private final Map<EtcdSession, AtomicBoolean> healthy = new HashMap<>();
  private final Map<EtcdSession, AtomicInteger> unhealthyYields = new HashMap<>();
  // Every term's token per key, to find two terms with one token (two leaders of one term).
  private final Map<String, Set<Long>> tokens = new ConcurrentHashMap<>();
  private final AtomicInteger duplicateTokens = new AtomicInteger();

  @BeforeEach
  void connect() {
    outside = ETCD.cluster().clientBuilder().build();
  }

  @AfterEach
  void closeAll() {
    for (EtcdSession s : sessions) {
      s.close();
    }
    outside.close();
  }

  /** session starts a spreading session with a health check that answers its flag, and the N elections. */
  private EtcdSession session(String id) {
    AtomicBoolean fine = new AtomicBoolean(true);
    EtcdSession s = EtcdSession.builder().prefix(prefix).candidateId(id).leaseTtl(TTL).spread(true)
        .healthCheck(fine::get).healthCheckInterval(Duration.ofMillis(100)).healthCheckThreshold(2)
        .endpoints(ETCD.cluster().clientEndpointsCsv().split(",")).build();
    sessions.add(s);
    healthy.put(s, fine);
    AtomicInteger yields = new AtomicInteger();
    unhealthyYields.put(s, yields);
    List<LeaderElector> es = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      String key = "shard-" + i;
      LeaderElector e = s.election(key);
      e.onLeadershipChanged(ev -> record(key, ev, yields));
      e.start();
      es.add(e);
    }
    elections.put(s, es);
    s.start();
    return s;
  }

  private void record(String key, LeadershipEvent e, AtomicInteger yields) {
    if (e.cause() == Cause.ELECTED
        && !tokens.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(e.fencingToken().orElseThrow())) {
      duplicateTokens.incrementAndGet();
    }
    if (e.cause() == Cause.UNHEALTHY) {
      yields.incrementAndGet();
    }
  }

  private int leading(EtcdSession s) {
    return (int) elections.get(s).stream().filter(LeaderElector::isLeader).count();
  }

  private List<Integer> leading(List<EtcdSession> ss) {
    return ss.stream().map(this::leading).toList();
  }

  /** awaitEven waits until {@code even} lead all N elections with a skew of at most 1, and {@code none} lead none. */
  private long awaitEven(List<EtcdSession> even, List<EtcdSession> none) {
    long start = System.nanoTime();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
      List<Integer> n = leading(even);
      int min = n.stream().mapToInt(Integer::intValue).min().orElse(0);
      int max = n.stream().mapToInt(Integer::intValue).max().orElse(0);
      assertTrue(n.stream().mapToInt(Integer::intValue).sum() == N && max - min <= 1
              && none.stream().allMatch(s -> leading(s) == 0),
          () -> "leading " + n + ", the unhealthy " + leading(none) + ", etcd " + holdersOrFailure());
    });
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private String holdersOrFailure() {
    try {
      return holders().toString();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** holders is etcd's view: each election key's holder, and the member keys. */
  private Map<String, String> holders() throws Exception {
    Map<String, String> out = new java.util.TreeMap<>();
    outside.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8), GetOption.builder().isPrefix(true).build())
        .get(5, TimeUnit.SECONDS).getKvs()
        .forEach(kv -> out.put(kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()),
            kv.getValue().toString(StandardCharsets.UTF_8)));
    return out;
  }

  private long members() throws Exception {
    return holders().keySet().stream().filter(k -> k.startsWith("members/")).count();
  }

  @Test
  void anUnhealthySessionMovesItsElectionsEvenlyToTheHealthyOnesAndGetsItsShareBackWhenHealthy() throws Exception {
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    EtcdSession c = session("c");
    awaitEven(List.of(a, b, c), List.of());
    int held = leading(c);
    assertEquals(4, held);

    healthy.get(c).set(false);
    long out = awaitEven(List.of(a, b), List.of(c));
    System.out.printf("health: c unhealthy, its %d elections moved in %d ms: a %d, b %d%n", held, out, leading(a),
        leading(b));
    assertEquals(held, unhealthyYields.get(c).get(), "each move told as UNHEALTHY");
    assertTrue(c.health().unhealthy().orElseThrow().startsWith("the health check answered false; out of the fleet"),
        c.health().toString());
    assertEquals(2, members(), "c left the fleet: " + holders());

    healthy.get(c).set(true);
    long back = awaitEven(List.of(a, b, c), List.of());
    System.out.printf("health: c healthy again, back to %s in %d ms%n", leading(List.of(a, b, c)), back);
    await().atMost(WAIT).until(() -> c.health().unhealthy().isEmpty());
    assertEquals(3, members(), holders().toString());
    assertEquals(0, duplicateTokens.get(), "no two terms of one key with one token");
  }

  @Test
  void withNoHealthyMemberTheTermsAreKeptAndHealthSaysSoUntilOneComes() throws Exception {
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    awaitEven(List.of(a, b), List.of());
    healthy.get(a).set(false);
    awaitEven(List.of(b), List.of(a));

    // b turns unhealthy too: nobody healthy to hand its 12 terms to, so it keeps them.
    healthy.get(b).set(false);
    await().atMost(WAIT).untilAsserted(() -> assertTrue(
        b.health().unhealthy().orElse("").endsWith("still leading 12 elections: no healthy member to hand them to"),
        b.health().toString()));
    assertFalse(b.health().unhealthy().isEmpty());
    assertTrue(b.health().healthy(), "the session itself works: " + b.health());
    // Each election says so in its own words: a session's election has no queue to yield to.
    String election = elections.get(b).get(0).health().unhealthy().orElse("");
    assertTrue(election.endsWith("; still leading until its session hands the term to a healthy member (none yet)"),
        election);
    // A renewal round or two later it still leads them all, and a does not campaign.
    await().pollDelay(TTL).atMost(TTL.multipliedBy(2)).until(() -> true);
    assertEquals(List.of(0, N), leading(List.of(a, b)));
    assertEquals(0, members(), holders().toString());

    // a healthy again: b hands everything over to it at once, by moves.
    healthy.get(a).set(true);
    long over = awaitEven(List.of(a), List.of(b));
    System.out.printf("health: a healthy member came, b handed over its 12 in %d ms%n", over);
    healthy.get(b).set(true);
    awaitEven(List.of(a, b), List.of());
    assertEquals(0, duplicateTokens.get(), "no two terms of one key with one token");
  }
}
