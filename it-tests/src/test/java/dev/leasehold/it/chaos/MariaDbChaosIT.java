package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * MariaDbChaosIT is the chaos suite on the MariaDB backend (issue 11): one real mariadbd,
 * three candidate JVMs running {@code --backend=jdbc} with the guarded counter workload, and
 * the faults of {@link MariaDbFaults} (mariadbd killed, paused, the MASTER's term session
 * KILLed, a candidate's link blackholed or reset, its JVM killed or paused), checked by the same
 * {@link HistoryChecker} as on etcd.
 *
 * <p>By default it is the bounded run of the normal suite: a fixed seed, every fault once, at
 * most 90 s including the server's start. The same properties as {@link ChaosIT} make it a long
 * run ({@code -Dchaos.iterations=N}, {@code -Dchaos.seed}, {@code -Dchaos.faults},
 * {@code -Dchaos.budget.minutes}, {@code -Dchaos.ttlSeconds}).
 */
class MariaDbChaosIT {
  static final long DEFAULT_SEED = 20261201L;
  private static final Duration BOUNDED_LIMIT = Duration.ofSeconds(90);

  @Test
  void onMariaDbNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    long seed = Long.getLong("chaos.seed", DEFAULT_SEED);
    Integer iterations = Integer.getInteger("chaos.iterations");
    boolean bounded = iterations == null;
    ChaosConfig config = ChaosConfig.mariaDb(seed, bounded ? 1 : iterations)
        .withFaults(MariaDbFaults.named(System.getProperty("chaos.faults")));
    // Leave room for closing and checking within the limit.
    config = ChaosRuns.configure(config, bounded, Duration.ofSeconds(70));
    ChaosRunner.Report report = ChaosRuns.run(config);
    if (bounded) {
      assertTrue(report.wallNanos() < BOUNDED_LIMIT.toNanos(),
          "the bounded run took " + report.wallNanos() / 1_000_000 + " ms, more than " + BOUNDED_LIMIT);
      assertTrue(report.history().faults().size() == config.faults().size(),
          "the bounded run ran " + report.history().faults().size() + " of " + config.faults().size() + " faults");
    }
  }
}
