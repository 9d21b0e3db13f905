package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdSession;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spreading a session's elections over the fleet (PROTOCOL.md §11.7) against a real one-member
 * etcd: 1,024 shard elections on three sessions end at 341 or 342 each, by the fewest moves (one
 * fenced transfer each, counted by the mover's RESIGNED event), and at 512 each after one
 * session leaves (its keys freed at once by its revoke, taken up by the survivors' preferred
 * campaigns, then evened by a few moves).
 */
class EtcdSessionSpreadIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int N = 1024;

  private Client outside;
  private final String prefix = "/it/spread/";
  private final List<EtcdSession> sessions = new ArrayList<>();
  private final Map<EtcdSession, List<LeaderElector>> elections = new HashMap<>();
  // Every term's token per key, to find two terms with one token (two leaders of one term).
  private final Map<String, Set<Long>> tokens = new ConcurrentHashMap<>();
  private final AtomicInteger duplicateTokens = new AtomicInteger();
  private final AtomicInteger moves = new AtomicInteger();

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

  /** session opens a spreading session with the shard elections, unstarted. */
  private EtcdSession session(String id) {
    EtcdSession s = EtcdSession.builder().prefix(prefix).candidateId(id).leaseTtl(TTL).spread(true)
        .endpoints(ETCD.cluster().clientEndpointsCsv().split(",")).build();
    sessions.add(s);
    List<LeaderElector> es = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      String key = "shard-" + i;
      LeaderElector e = s.election(key);
      e.onLeadershipChanged(ev -> record(key, ev));
      e.start();
      es.add(e);
    }
    elections.put(s, es);
    return s;
  }

  private void record(String key, LeadershipEvent e) {
    if (e.cause() == Cause.ELECTED
        && !tokens.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(e.fencingToken().orElseThrow())) {
      duplicateTokens.incrementAndGet();
    }
    if (e.cause() == Cause.RESIGNED) {
      moves.incrementAndGet();
    }
  }

  private int leading(EtcdSession s) {
    return (int) elections.get(s).stream().filter(LeaderElector::isLeader).count();
  }

  private boolean spread(List<EtcdSession> live) {
    int total = 0;
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (EtcdSession s : live) {
      int n = leading(s);
      total += n;
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    return total == N && max - min <= 1;
  }

  private void awaitSpread(List<EtcdSession> live) {
    await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> assertTrue(spread(live),
        () -> "leading " + live.stream().map(this::leading).toList() + ", etcd " + keysByHolderOrFailure()));
  }

  private String keysByHolderOrFailure() {
    try {
      return keysByHolder().toString();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** keysByHolder is etcd's view: how many election keys each candidate's lease holds. */
  private Map<String, Long> keysByHolder() throws Exception {
    ByteSequence p = ByteSequence.from(prefix + "shard-", StandardCharsets.UTF_8);
    List<KeyValue> kvs = outside.getKVClient().get(p, GetOption.builder().isPrefix(true).build())
        .get(5, TimeUnit.SECONDS).getKvs();
    return kvs.stream().collect(Collectors.groupingBy(kv -> kv.getValue().toString(StandardCharsets.UTF_8),
        Collectors.counting()));
  }

  @Test
  void aThousandShardsSpreadOverThreeSessionsAndAgainWhenOneLeaves() throws Exception {
    EtcdSession a = session("a");
    a.start();
    await().atMost(WAIT).until(() -> leading(a) == N);
    EtcdSession b = session("b");
    EtcdSession c = session("c");
    b.start();
    c.start();
    long joined = System.nanoTime();
    awaitSpread(List.of(a, b, c));
    long settle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joined);
    int joinMoves = moves.get();
    Map<String, Long> etcd = keysByHolder();
    System.out.printf("spread: joined 2 to 1 at %d elections: %d/%d/%d after %d ms, %d moves (fewest %d); etcd %s%n",
        N, leading(a), leading(b), leading(c), settle, joinMoves, N - 342, etcd);
    assertEquals(Map.of("a", (long) leading(a), "b", (long) leading(b), "c", (long) leading(c)), etcd);
    assertTrue(joinMoves <= (N - 342) * 105 / 100, "moves " + joinMoves + " within 5 % of the fewest, 682");

    // A leave: c closes, its lease revoked; a and b take its keys by campaign, then spread.
    int before = moves.get();
    c.close();
    long left = System.nanoTime();
    awaitSpread(List.of(a, b));
    System.out.printf("spread: after a leave %d/%d after %d ms, %d moves%n", leading(a), leading(b),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - left), moves.get() - before);
    assertEquals(Map.of("a", (long) leading(a), "b", (long) leading(b)), keysByHolder());
    assertEquals(0, duplicateTokens.get(), "no two terms of one key with one token");

    // Settled, the fleet moves nothing.
    int settled = moves.get();
    // Three renewal rounds (a third of the TTL each): each would have moved any excess.
    await().pollDelay(TTL).atMost(TTL.multipliedBy(2)).until(() -> true);
    assertEquals(settled, moves.get(), "a balanced fleet moves nothing");
  }
}
