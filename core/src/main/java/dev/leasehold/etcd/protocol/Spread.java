package dev.leasehold.etcd.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Spread is the rule by which the members of a session's fleet share its elections (PROTOCOL.md
 * §11.7), as a pure function that every member computes alike from the same view.
 *
 * <ul>
 *   <li><b>Share.</b> With N elections open on the fleet and a total weight W, member m's quota
 *       is {@code N × w(m) / W}; it holds its floor or its ceiling.
 *   <li><b>Targets.</b> Each member's target is its holding clamped to [floor, ceiling]; while
 *       the targets add up to more than N, the members at their ceiling above their floor (in
 *       lease order) drop to the floor; while less, those below their ceiling (in lease order)
 *       rise by one. A member within its share keeps what it has: a balanced fleet moves nothing,
 *       and a join or leave moves exactly the excess above the targets, the fewest a rule of
 *       whole shares allows.
 *   <li><b>Moves.</b> The members above their targets (in lease order) are matched with those
 *       below (in lease order), one election per move.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class Spread {
  private Spread() {}

  /** Move is a number of elections one member hands to another. */
  public record Move(SessionMember from, SessionMember to, int count) {}

  /**
   * targets gives each member (by lease) how many of the {@code n} elections it should hold,
   * given what it holds now ({@code held}, by lease; absent: none).
   */
  public static Map<Long, Integer> targets(Collection<SessionMember> members, Map<Long, Integer> held, int n) {
    List<SessionMember> order = ordered(members);
    long total = 0;
    for (SessionMember m : order) {
      total += m.weight();
    }
    Map<Long, Integer> target = new java.util.LinkedHashMap<>();
    if (order.isEmpty()) {
      return target;
    }
    int[] floor = new int[order.size()];
    int[] ceil = new int[order.size()];
    int[] t = new int[order.size()];
    long sum = 0;
    for (int i = 0; i < order.size(); i++) {
      long quota = (long) n * order.get(i).weight();
      floor[i] = (int) (quota / total);
      ceil[i] = (int) ((quota + total - 1) / total);
      t[i] = Math.max(floor[i], Math.min(ceil[i], held.getOrDefault(order.get(i).leaseId(), 0)));
      sum += t[i];
    }
    // The floors add up to at most n and the ceilings to at least n, so both loops end.
    for (int i = 0; sum > n && i < t.length; i++) {
      if (t[i] > floor[i]) {
        t[i]--;
        sum--;
      }
    }
    for (int i = 0; sum < n && i < t.length; i++) {
      if (t[i] < ceil[i]) {
        t[i]++;
        sum++;
      }
    }
    for (int i = 0; i < t.length; i++) {
      target.put(order.get(i).leaseId(), t[i]);
    }
    return target;
  }

  /**
   * moves is the plan that brings every member to its target: the members above it, in lease
   * order, hand their excess to those below, in lease order. Its length is at most the number of
   * members; the elections moved add up to the excess above the targets.
   */
  public static List<Move> moves(Collection<SessionMember> members, Map<Long, Integer> held, int n) {
    Map<Long, Integer> target = targets(members, held, n);
    List<SessionMember> order = ordered(members);
    List<SessionMember> givers = new ArrayList<>();
    List<SessionMember> takers = new ArrayList<>();
    for (SessionMember m : order) {
      int h = held.getOrDefault(m.leaseId(), 0);
      int t = target.get(m.leaseId());
      if (h > t) {
        givers.add(m);
      } else if (h < t) {
        takers.add(m);
      }
    }
    List<Move> plan = new ArrayList<>();
    int g = 0;
    int k = 0;
    int give = givers.isEmpty() ? 0 : excess(givers.get(0), held, target);
    int take = takers.isEmpty() ? 0 : -excess(takers.get(0), held, target);
    while (g < givers.size() && k < takers.size()) {
      int c = Math.min(give, take);
      plan.add(new Move(givers.get(g), takers.get(k), c));
      give -= c;
      take -= c;
      if (give == 0 && ++g < givers.size()) {
        give = excess(givers.get(g), held, target);
      }
      if (take == 0 && ++k < takers.size()) {
        take = -excess(takers.get(k), held, target);
      }
    }
    return plan;
  }

  /**
   * handOver is where a member that left the fleet unhealthy sends the {@code count} elections it
   * still leads (PROTOCOL.md §11.7, yield when unhealthy): one member per election, each time the
   * one furthest below its target ({@link #targets} of the {@code n} elections over the healthy
   * {@code members}, given what they hold, {@code held}), then the least loaded for its weight,
   * then in lease order. The healthy members thus end as even as whole shares allow. Empty with
   * no members: there is nobody healthy to hand them to.
   */
  public static List<SessionMember> handOver(
      Collection<SessionMember> members, Map<Long, Integer> held, int n, int count) {
    List<SessionMember> to = new ArrayList<>();
    if (members.isEmpty()) {
      return to;
    }
    List<SessionMember> order = ordered(members);
    Map<Long, Integer> target = targets(order, held, n);
    Map<Long, Integer> now = new java.util.HashMap<>();
    for (SessionMember m : order) {
      now.put(m.leaseId(), held.getOrDefault(m.leaseId(), 0));
    }
    for (int i = 0; i < count; i++) {
      SessionMember best = null;
      for (SessionMember m : order) {
        if (best == null || better(m, best, target, now)) {
          best = m;
        }
      }
      to.add(best);
      now.merge(best.leaseId(), 1, Integer::sum);
    }
    return to;
  }

  // Further below its target; else less loaded for its weight (a/wa < b/wb); else neither: the
  // earlier in lease order stays.
  private static boolean better(
      SessionMember a, SessionMember b, Map<Long, Integer> target, Map<Long, Integer> now) {
    long da = target.get(a.leaseId()) - now.get(a.leaseId());
    long db = target.get(b.leaseId()) - now.get(b.leaseId());
    if (da != db) {
      return da > db;
    }
    return (long) now.get(a.leaseId()) * b.weight() < (long) now.get(b.leaseId()) * a.weight();
  }

  /**
   * preferred is the member that campaigns at once for the free election {@code key}, by weighted
   * rendezvous hashing: the highest {@code weight / -ln(h)} for {@code h} a hash of the key and
   * the member's lease in (0, 1). The others hold back a while, so freed elections land spread
   * (each member gets about its weight's part of them) rather than on whoever campaigns first,
   * and a leave needs few moves after. Null with no members.
   */
  public static SessionMember preferred(Collection<SessionMember> members, String key) {
    SessionMember best = null;
    double bestScore = 0;
    long k = mix(key.hashCode() * 0x9E3779B97F4A7C15L);
    for (SessionMember m : members) {
      double h = ((mix(k ^ m.leaseId()) >>> 11) + 0.5) * 0x1.0p-53;
      double score = m.weight() / -Math.log(h);
      if (best == null || score > bestScore || score == bestScore && m.leaseId() < best.leaseId()) {
        best = m;
        bestScore = score;
      }
    }
    return best;
  }

  // SplitMix64's finalizer: spreads every input bit over the output.
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static int excess(SessionMember m, Map<Long, Integer> held, Map<Long, Integer> target) {
    return held.getOrDefault(m.leaseId(), 0) - target.get(m.leaseId());
  }

  private static List<SessionMember> ordered(Collection<SessionMember> members) {
    List<SessionMember> order = new ArrayList<>(members);
    order.sort(Comparator.comparingLong(SessionMember::leaseId));
    return order;
  }
}
