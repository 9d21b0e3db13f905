package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Interval;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * SpreadBalance is the spreading run's own check, beside {@link HistoryChecker}'s five per shard:
 * after each storm, the fleet that is left leads every shard with a skew (max − min leaderships
 * among its members, a member leading none counting 0) of at most 1, within {@link #boundNanos}
 * of the storm's settle point: its last leave, or its last joiner's {@code READY} (a JVM's start
 * included) when that is later. The target is 2 × TTL.
 *
 * <p>It reads the terms as their holders reported them ({@link Interval}s per shard) and finds
 * the first moment after the storm's last action at which the condition holds; moves are the
 * terms ended {@code RESIGNED} between the storm's injection and that moment (a spreading move
 * steps down with RESIGNED, PROTOCOL.md §11.7; nothing else resigns in this run). Stateless;
 * thread-safe.
 */
public final class SpreadBalance {
  private SpreadBalance() {}

  /**
   * Storm is one storm as the balance check needs it.
   *
   * @param window the storm's fault window (its injection, its last action)
   * @param fleet the member processes live after it
   * @param settleFrom its last leave, or its last joiner's READY when later
   */
  public record Storm(FaultWindow window, Set<String> fleet, long settleFrom) {
    /** Storm copies its fleet. */
    public Storm {
      fleet = Set.copyOf(fleet);
    }
  }

  /**
   * Outcome is one storm's balance.
   *
   * @param storm the storm
   * @param balancedAt the first moment after its last action with every shard led by the fleet
   *     and skew ≤ 1 (Long.MAX_VALUE: never before the next storm or the run's end)
   * @param moves spreading moves between its injection and {@code balancedAt}
   */
  public record Outcome(Storm storm, long balancedAt, int moves) {
    /** toBalanceNanos is the time from the settle point to balance (0 if balanced before it). */
    public long toBalanceNanos() {
      return balancedAt == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, balancedAt - storm.settleFrom());
    }
  }

  /** boundNanos is the target for skew ≤ 1 after a join or leave: 2 × TTL. */
  public static long boundNanos(History.Params params) {
    return 2 * params.ttlNanos();
  }

  /**
   * check measures every storm against the shards' terms, and adds a {@link ChaosViolation.Kind#SKEW}
   * violation to {@code out} for each storm not balanced within {@link #boundNanos}.
   *
   * @param params the run's timing
   * @param shards each shard's terms, by shard name
   * @param storms the storms, in order
   * @param runEnd when the members were closed
   * @param out receives the violations
   * @return each storm's outcome, in order
   */
  public static List<Outcome> check(History.Params params, Map<String, List<Interval>> shards, List<Storm> storms,
      long runEnd, List<ChaosViolation> out) {
    List<Outcome> outcomes = new ArrayList<>();
    for (int i = 0; i < storms.size(); i++) {
      Storm s = storms.get(i);
      long until = i + 1 < storms.size() ? storms.get(i + 1).window().inject() : runEnd;
      long at = firstBalanced(shards, s.fleet(), s.window().recover(), until);
      int moves = 0;
      for (List<Interval> terms : shards.values()) {
        for (Interval iv : terms) {
          if (iv.endCause().equals("RESIGNED") && iv.end() > s.window().inject() && iv.end() <= at) {
            moves++;
          }
        }
      }
      Outcome o = new Outcome(s, at, moves);
      outcomes.add(o);
      long bound = boundNanos(params);
      if (o.toBalanceNanos() > bound) {
        out.add(new ChaosViolation(ChaosViolation.Kind.SKEW, s.settleFrom(), s.window().fault(),
            s.window().iteration(), "the fleet " + new TreeSet<>(s.fleet()) + " left by " + s.window().target()
                + (at == Long.MAX_VALUE ? " never led every shard with skew <= 1"
                    : " led every shard with skew <= 1 only " + HistoryChecker.ms(o.toBalanceNanos()))
                + " after its settle point, bound " + HistoryChecker.ms(bound)));
      }
    }
    return outcomes;
  }

  /** firstBalanced is the first moment in [from, until) at which {@link #balanced} holds, or Long.MAX_VALUE. */
  static long firstBalanced(Map<String, List<Interval>> shards, Set<String> fleet, long from, long until) {
    TreeSet<Long> moments = new TreeSet<>();
    moments.add(from);
    for (List<Interval> terms : shards.values()) {
      for (Interval iv : terms) {
        for (long t : new long[] {iv.start(), iv.end()}) {
          if (t > from && t < until) {
            moments.add(t);
          }
        }
      }
    }
    for (long t : moments) {
      if (balanced(shards, fleet, t)) {
        return t;
      }
    }
    return Long.MAX_VALUE;
  }

  /**
   * balanced: at {@code t} every shard has exactly one term, held by a member of {@code fleet},
   * and the fleet's members' counts differ by at most 1.
   */
  static boolean balanced(Map<String, List<Interval>> shards, Set<String> fleet, long t) {
    Map<String, Integer> counts = new HashMap<>();
    fleet.forEach(m -> counts.put(m, 0));
    for (List<Interval> terms : shards.values()) {
      String holder = null;
      int held = 0;
      for (Interval iv : terms) {
        if (iv.start() <= t && t < iv.end()) {
          holder = iv.process();
          held++;
        }
      }
      if (held != 1 || !fleet.contains(holder)) {
        return false;
      }
      counts.merge(holder, 1, Integer::sum);
    }
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    return max - min <= 1;
  }
}
