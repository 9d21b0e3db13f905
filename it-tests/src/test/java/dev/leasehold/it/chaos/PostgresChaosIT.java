package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * PostgresChaosIT is the chaos suite on the PostgreSQL backend (issue 25): one real postgres,
 * three candidate JVMs running {@code --backend=jdbc} with the guarded counter workload, and the
 * faults of {@link PostgresFaults} (postgres killed, paused, the MASTER's term session
 * terminated, a candidate's link blackholed or reset, its JVM killed or paused), checked by the
 * same {@link HistoryChecker} as on etcd and MariaDB.
 *
 * <p>By default it is the bounded run of the normal suite: a fixed seed, every fault once. The
 * same properties as {@link ChaosIT} make it a long run ({@code -Dchaos.iterations=N},
 * {@code -Dchaos.seed}, {@code -Dchaos.faults}, {@code -Dchaos.budget.minutes}).
 */
class PostgresChaosIT {
  static final long DEFAULT_SEED = 20261205L;
  private static final Duration BOUNDED_LIMIT = Duration.ofSeconds(90);

  @Test
  void onPostgresNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    long seed = Long.getLong("chaos.seed", DEFAULT_SEED);
    Integer iterations = Integer.getInteger("chaos.iterations");
    boolean bounded = iterations == null;
    ChaosConfig config = ChaosConfig.postgres(seed, bounded ? 1 : iterations)
        .withFaults(PostgresFaults.named(System.getProperty("chaos.faults")));
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
