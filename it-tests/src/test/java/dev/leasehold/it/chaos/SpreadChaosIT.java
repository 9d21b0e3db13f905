package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SpreadChaosIT is issue 28's member storm against a real 3-member etcd cluster and spreading
 * member JVMs ({@link SpreadChaosRunner}; CHAOS.md, "Member storms").
 *
 * <p>By default it is the bounded pass of the normal suite: seed {@value #DEFAULT_SEED}, two
 * storms. {@code -Dchaos.iterations=N} makes it the long run (N storms); {@code -Dchaos.seed=S}
 * replays a seed; {@code -Dchaos.budget.minutes=M} stops starting storms after M minutes; {@code
 * -Dchaos.shards=N} sets the shard elections (24); {@code -Dchaos.ttlSeconds},
 * {@code -Dchaos.electionTimeoutMillis} and {@code -Dchaos.preVote} as for {@code ChaosIT}. Both
 * print the summary tables; a failure prints the seed, the violations and the history around
 * them, and keeps the full history under target/chaos.
 */
class SpreadChaosIT {
  static final long DEFAULT_SEED = 20261205L;
  private static final int BOUNDED_STORMS = 2;

  @Test
  void stormsOfJoinsAndLeavesUnderFencedLoadKeepEveryShardSafeAndTheFleetEven() throws Exception {
    long seed = Long.getLong("chaos.seed", DEFAULT_SEED);
    Integer iterations = Integer.getInteger("chaos.iterations");
    boolean bounded = iterations == null;
    SpreadChaosConfig config = SpreadChaosConfig.defaults(seed, bounded ? BOUNDED_STORMS : iterations);
    config = config.withBase(ChaosRuns.configure(config.base(), bounded, Duration.ofSeconds(60)))
        .withShards(Integer.getInteger("chaos.shards", config.shards()));
    SpreadChaosConfig ran = config;
    SpreadChaosRunner.Report report =
        ChaosRuns.printing(seed, out -> new SpreadChaosRunner(ran, out).run(), SpreadChaosRunner.Report::ok);
    if (bounded) {
      assertEquals(BOUNDED_STORMS, report.storms(), "storms the bounded pass ran");
    }
  }
}
