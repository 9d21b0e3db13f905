package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.Interval;
import dev.leasehold.it.chaos.History.StoreWrite;
import dev.leasehold.it.chaos.History.TargetKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * SpreadChaosCheckTest drives the spreading run's checks with hand-made fleets: the members'
 * lines go through {@link FleetRecorder} into one history per shard, which {@link HistoryChecker}
 * judges (an overlap or a stale write accepted on one shard is caught and names that shard only),
 * and {@link SpreadBalance} finds when the fleet is even after a storm and reports a fleet that
 * stays uneven past 2 × TTL.
 */
class SpreadChaosCheckTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final History.Params PARAMS = new History.Params(3 * S, 500 * MS);

  /** A fleet of a and b over two shards: a leads shard-0 (token 5), b leads shard-1 (token 6), each writes once. */
  private static FleetRecorder twoShards() {
    FleetRecorder r = new FleetRecorder(List.of("shard-0", "shard-1"));
    r.accept("a.1", "S shard-0 EVENT " + 1 * S + " ELECTED FOLLOWER MASTER a 5");
    r.accept("b.1", "S shard-1 EVENT " + 1 * S + " ELECTED FOLLOWER MASTER b 6");
    r.accept("a.1", "S shard-0 WRITE " + 2 * S + " " + 2 * S + " " + (2 * S + MS) + " 5 OK 1 1");
    r.accept("b.1", "S shard-1 WRITE " + 2 * S + " " + 2 * S + " " + (2 * S + MS) + " 6 OK 1 2");
    r.accept("a.1", "STALL " + 3 * S + " " + (3 * S + 130 * MS));
    return r;
  }

  private static StoreHistory record(String writer, long token, long seq) {
    return new StoreHistory(List.of(new StoreWrite(token + 10, 1, writer, token, seq)),
        List.of(new Incarnation(token, Long.MAX_VALUE, writer)), 1);
  }

  private static HistoryChecker.Result check(FleetRecorder r, String shard, StoreHistory record) {
    return HistoryChecker.check(r.history(shard, PARAMS, record, 0, 10 * S));
  }

  @Test
  void aCleanFleetPassesShardByShardAndEveryShardSeesTheFleetsStalls() {
    FleetRecorder r = twoShards();
    HistoryChecker.Result s0 = check(r, "shard-0", record("a.1", 5, 1));
    HistoryChecker.Result s1 = check(r, "shard-1", record("b.1", 6, 2));
    assertTrue(s0.ok(), () -> s0.violations().toString());
    assertTrue(s1.ok(), () -> s1.violations().toString());
    assertEquals(1, s0.totals().terms());
    assertEquals(1, r.history("shard-1", PARAMS, record("b.1", 6, 2), 0, 10 * S).stalls().size());
  }

  @Test
  void twoMembersLeadingOneShardAtOnceIsAnOverlapOnThatShardOnly() {
    FleetRecorder r = twoShards();
    // b also believes it leads shard-0 from 4 s on, while a's term there is still open.
    r.accept("b.1", "S shard-0 EVENT " + 4 * S + " ELECTED FOLLOWER MASTER b 9");
    HistoryChecker.Result s0 = check(r, "shard-0", record("a.1", 5, 1));
    HistoryChecker.Result s1 = check(r, "shard-1", record("b.1", 6, 2));
    assertTrue(s0.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.OVERLAP),
        () -> s0.violations().toString());
    assertTrue(s1.ok(), () -> s1.violations().toString());
  }

  @Test
  void aStaleFencedWriteAcceptedOnAShardIsCaught() {
    FleetRecorder r = twoShards();
    // a's term on shard-0 was moved to b at revision 20 (token 20); a then writes with token 5 and is accepted.
    r.accept("a.1", "S shard-0 EVENT " + 4 * S + " RESIGNED MASTER FOLLOWER - 0");
    r.accept("b.1", "S shard-0 EVENT " + (4 * S + 10 * MS) + " ELECTED FOLLOWER MASTER b 20");
    r.accept("a.1", "S shard-0 WRITE " + 5 * S + " " + 5 * S + " " + (5 * S + MS) + " 5 OK 2 3");
    StoreHistory store = new StoreHistory(
        List.of(new StoreWrite(15, 1, "a.1", 5, 1), new StoreWrite(25, 2, "a.1", 5, 3)),
        List.of(new Incarnation(5, 20, "a"), new Incarnation(20, Long.MAX_VALUE, "b")), 2);
    HistoryChecker.Result s0 = check(r, "shard-0", store);
    assertTrue(s0.violations().stream().anyMatch(v -> v.kind() == ChaosViolation.Kind.STALE_WRITE),
        () -> s0.violations().toString());
  }

  private static FaultWindow storm(long inject, long recover) {
    return new FaultWindow(1, SpreadChaosConfig.FAULT, TargetKind.CANDIDATE, "-c(kill) +d", true, inject, recover);
  }

  @Test
  void theFleetIsEvenOnceEveryShardIsLedAndTheCountsDifferByOneAtMost() {
    // Four shards; a and b lead two each until c is killed at 10 s... here: c leaves, d joins.
    Map<String, List<Interval>> shards = new LinkedHashMap<>();
    shards.put("s0", List.of(new Interval("a.1", 1, 0, 100 * S, "OPEN")));
    shards.put("s1", List.of(new Interval("b.1", 2, 0, 100 * S, "OPEN")));
    shards.put("s2", List.of(new Interval("c.1", 3, 0, 10 * S, "KILLED"),
        new Interval("a.1", 7, 14 * S, 15 * S, "RESIGNED"), new Interval("d.1", 8, 15 * S, 100 * S, "OPEN")));
    shards.put("s3", List.of(new Interval("c.1", 4, 0, 10 * S, "KILLED"), new Interval("b.1", 9, 14 * S, 100 * S,
        "OPEN")));
    List<ChaosViolation> out = new ArrayList<>();
    SpreadBalance.Storm st = new SpreadBalance.Storm(storm(10 * S, 10 * S + 500 * MS), Set.of("a.1", "b.1", "d.1"),
        12 * S);
    List<SpreadBalance.Outcome> o = SpreadBalance.check(PARAMS, shards, List.of(st), 100 * S, out);
    assertTrue(out.isEmpty(), out::toString);
    // At 14 s every shard is led but a holds 2, b 2 and d none; at 15 s the move makes it 1, 2, 1.
    assertEquals(15 * S, o.get(0).balancedAt());
    assertEquals(3 * S, o.get(0).toBalanceNanos());
    assertEquals(1, o.get(0).moves());
  }

  @Test
  void aFleetThatStaysUnevenPastTwiceTheTtlIsASkewViolation() {
    Map<String, List<Interval>> shards = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      shards.put("s" + i, List.of(new Interval("a.1", i + 1, 0, 100 * S, "OPEN")));
    }
    List<ChaosViolation> out = new ArrayList<>();
    SpreadBalance.Storm st = new SpreadBalance.Storm(storm(10 * S, 10 * S + 500 * MS), Set.of("a.1", "d.1"), 12 * S);
    List<SpreadBalance.Outcome> o = SpreadBalance.check(PARAMS, shards, List.of(st), 100 * S, out);
    assertEquals(Long.MAX_VALUE, o.get(0).balancedAt());
    assertEquals(1, out.size(), out::toString);
    assertEquals(ChaosViolation.Kind.SKEW, out.get(0).kind());
  }
}
