package dev.leasehold.it.chaos;

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

  @Test
  void onMariaDbNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    ChaosRuns.sqlSuite(DEFAULT_SEED, ChaosConfig::mariaDb, MariaDbFaults::named);
  }
}
