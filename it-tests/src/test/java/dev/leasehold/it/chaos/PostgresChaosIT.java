package dev.leasehold.it.chaos;

import org.junit.jupiter.api.Test;

/**
 * PostgresChaosIT is the chaos suite on the PostgreSQL backend (issue 25): one real postgres,
 * three candidate JVMs running {@code --backend=jdbc} with the guarded counter workload, checked
 * by the same {@link HistoryChecker} as on etcd and MariaDB. Two runs, each on its own postgres:
 *
 * <ul>
 *   <li>the candidates connected directly, with the faults of {@link PostgresFaults#all()}
 *       (postgres killed, paused, the MASTER's term session terminated, a candidate's link
 *       blackholed or reset, its JVM killed or paused);
 *   <li>the candidates, the elector and the workload alike, through one transaction-mode
 *       PgBouncer, where the electors detect the pooler and poll, with the faults of
 *       {@link PostgresFaults#throughPgBouncer()} (PgBouncer killed and started again on its port,
 *       paused, postgres killed and paused behind it, and the candidate faults).
 * </ul>
 *
 * <p>By default each is a bounded run of the normal suite with a fixed seed: the direct run every
 * fault once, the PgBouncer run only {@code pgbouncer-restart} once (for the suite's time budget:
 * {@code pgbouncer-pause} would add about 4 s, and the others run in the direct run too). The same properties as {@link ChaosIT} make long runs of every fault of both
 * ({@code -Dchaos.iterations=N}, {@code -Dchaos.seed}, {@code -Dchaos.budget.minutes}, each per
 * run); {@code -Dchaos.faults} keeps each run's listed faults and skips a run with none of them,
 * and Failsafe's {@code -Dit.test=PostgresChaosIT#throughPgBouncer*} runs the PgBouncer run alone.
 */
class PostgresChaosIT {
  static final long DEFAULT_SEED = 20261205L;
  static final long PGBOUNCER_SEED = 20261206L;

  @Test
  void onPostgresNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    ChaosRuns.sqlSuite(DEFAULT_SEED, ChaosConfig::postgres, names -> PostgresFaults.named(PostgresFaults.all(), names));
  }

  @Test
  void throughPgBouncerNoTwoLeadersNoStaleFencedWriteNoLostWriteAndAMasterAfterEveryFault() throws Exception {
    ChaosRuns.sqlSuite(PGBOUNCER_SEED, ChaosConfig::postgresThroughPgBouncer,
        names -> PostgresFaults.named(PostgresFaults.throughPgBouncer(), names), "pgbouncer-restart");
  }
}
