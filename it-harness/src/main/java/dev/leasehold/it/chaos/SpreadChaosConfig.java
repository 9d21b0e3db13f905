package dev.leasehold.it.chaos;

import java.time.Duration;
import java.util.List;

/**
 * SpreadChaosConfig is one spreading chaos run's settings (the member storm, CHAOS.md): the
 * etcd and timing settings of a chaos run ({@code base}: seed, storms as its iterations, TTL,
 * etcd's election timeout, rpc timeout, poll, think time, wall budget) and the fleet's shape.
 * Immutable.
 *
 * @param base the chaos settings it shares with {@link ChaosRunner}'s runs; its fault list is unused
 * @param members how many members start, and the fleet's size a storm aims around
 * @param minMembers the fewest members a storm may leave
 * @param maxMembers the most members a storm may leave
 * @param shards how many shard elections every member opens
 */
public record SpreadChaosConfig(ChaosConfig base, int members, int minMembers, int maxMembers, int shards) {

  /** FAULT is the storm's name in the history and the table. */
  public static final String FAULT = "member-storm";

  /**
   * defaults are the suite's settings: 4 members (3 to 5 after a storm), 24 shards, TTL 4 s (as
   * {@link ChaosConfig#defaults} and the long runs: at 3 s a member JVM starting beside the
   * model checker once had its session lease's grant and first renewal take its whole 2.67 s
   * window, and lost every term with no fault; CHAOS.md), etcd's election timeout 500 ms
   * with pre-vote, rpc timeout 750 ms, poll 500 ms, think 100 ms (24 counters written at once
   * gave etcd about 100 fenced transactions a second, and as many reads, in the first long run).
   *
   * @param seed drives every draw of the run
   * @param storms how many storms
   * @return the settings
   */
  public static SpreadChaosConfig defaults(long seed, int storms) {
    ChaosConfig base = new ChaosConfig(seed, storms, List.of(), 4, 4, 500, true, 750, true, 500, 100, null,
        ChaosConfig.Store.ETCD);
    return new SpreadChaosConfig(base, 4, 3, 5, 24);
  }

  /**
   * withBase replaces the chaos settings (as {@code ChaosRuns.configure} adjusts them).
   *
   * @param b the settings
   * @return these settings with {@code b}
   */
  public SpreadChaosConfig withBase(ChaosConfig b) {
    return new SpreadChaosConfig(b, members, minMembers, maxMembers, shards);
  }

  /**
   * withShards sets the number of shard elections.
   *
   * @param n at least 1
   * @return these settings with {@code n} shards
   */
  public SpreadChaosConfig withShards(int n) {
    return new SpreadChaosConfig(base, members, minMembers, maxMembers, n);
  }

  /** seed is the run's seed. */
  public long seed() {
    return base.seed();
  }

  /** storms is how many storms the run makes. */
  public int storms() {
    return base.iterationsPerFault();
  }

  /** wallBudget is when the run stops starting storms, or null. */
  public Duration wallBudget() {
    return base.wallBudget();
  }
}
