package dev.leasehold.it.chaos;

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

  @Test
  void onPostgresNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    ChaosRuns.sqlSuite(DEFAULT_SEED, ChaosConfig::postgres, PostgresFaults::named);
  }
}
