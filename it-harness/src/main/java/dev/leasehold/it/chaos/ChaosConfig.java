package dev.leasehold.it.chaos;

import java.time.Duration;
import java.util.List;

/**
 * ChaosConfig is one chaos run's settings. Immutable.
 *
 * @param seed drives the order of faults, their targets among equals, hold times and phases
 * @param iterationsPerFault how many times each fault runs
 * @param faults the faults to run
 * @param candidates how many candidate JVMs
 * @param ttlSeconds the candidates' lease TTL
 * @param electionTimeoutMillis etcd's election timeout (heartbeat: a tenth)
 * @param preVote etcd's --pre-vote
 * @param rpcTimeoutMillis the candidates' per-call timeout; 0 leaves core's default (min(1 s, TTL/4))
 * @param requireLeader whether candidates send etcd's hasleader metadata on every call
 * @param pollMillis the candidates' follower poll interval
 * @param thinkMillis the workload's pause between reading the counter and writing it
 * @param wallBudget stop starting new iterations after this much time (null: no limit)
 * @param store the backend: etcd, or MariaDB (where {@code electionTimeoutMillis} is no etcd
 *     setting but the nominal time the store takes to serve again once a fault heals, which
 *     enters the liveness bound TTL + 2 × it + 1 s; {@code preVote} and {@code requireLeader}
 *     do not apply)
 */
public record ChaosConfig(
    long seed,
    int iterationsPerFault,
    List<Fault> faults,
    int candidates,
    int ttlSeconds,
    int electionTimeoutMillis,
    boolean preVote,
    int rpcTimeoutMillis,
    boolean requireLeader,
    int pollMillis,
    int thinkMillis,
    Duration wallBudget,
    Store store) {

  /** Store is the backend the candidates elect on. */
  public enum Store {
    /** A 3-member etcd cluster behind peer proxies ({@link EtcdStore}). */
    ETCD,
    /** One private mariadbd ({@link MariaDbStore}); candidates run {@code --backend=jdbc}. */
    MARIADB,
    /** One private postgres ({@link PostgresStore#start()}); candidates run {@code --backend=jdbc}. */
    POSTGRES,
    /** One private postgres behind a transaction-mode PgBouncer ({@link PostgresStore#throughPgBouncer()}). */
    POSTGRES_PGBOUNCER
  }

  /**
   * defaults returns the suite's settings for a seed and a number of iterations per fault: 3
   * candidates, TTL 4 s, etcd election timeout 500 ms with pre-vote, rpc timeout 750 ms. TTL 4 s
   * and not 3 s: at 3 s a MASTER loses its term in a few percent of etcd-isolate-leader faults
   * (etcd's failover costs exceed its 1.67 s renewal slack; see CHAOS.md), which would make
   * the bounded run flaky.
   */
  public static ChaosConfig defaults(long seed, int iterationsPerFault) {
    return new ChaosConfig(seed, iterationsPerFault, Faults.all(), 3, 4, 500, true, 750, true, 500, 40, null,
        Store.ETCD);
  }

  /**
   * mariaDb returns the MariaDB suite's settings: 3 candidates, TTL 2 s (renewal every 333 ms,
   * deadline window 1.78 s), rpc timeout core's default (TTL/4 = 500 ms), poll 500 ms, think
   * 40 ms, every fault of {@link MariaDbFaults}, a nominal store recovery time of 500 ms (so the
   * liveness bound is TTL + 2 s, as on etcd).
   */
  public static ChaosConfig mariaDb(long seed, int iterationsPerFault) {
    return new ChaosConfig(seed, iterationsPerFault, MariaDbFaults.all(), 3, 2, 500, false, 0, false, 500, 40, null,
        Store.MARIADB);
  }

  /**
   * postgres returns the PostgreSQL suite's settings: those of {@link #mariaDb} with every fault
   * of {@link PostgresFaults}.
   */
  public static ChaosConfig postgres(long seed, int iterationsPerFault) {
    return new ChaosConfig(seed, iterationsPerFault, PostgresFaults.all(), 3, 2, 500, false, 0, false, 500, 40, null,
        Store.POSTGRES);
  }

  /**
   * postgresThroughPgBouncer returns the settings of {@link #postgres} for candidates that reach
   * postgres through a transaction-mode PgBouncer (their electors detect the pooler and poll every
   * 500 ms), with every fault of {@link PostgresFaults#throughPgBouncer()}.
   *
   * @param seed drives the order of faults, their targets, hold times and phases
   * @param iterationsPerFault how many times each fault runs
   * @return the settings
   */
  public static ChaosConfig postgresThroughPgBouncer(long seed, int iterationsPerFault) {
    return postgres(seed, iterationsPerFault).withFaults(PostgresFaults.throughPgBouncer())
        .withStore(Store.POSTGRES_PGBOUNCER);
  }

  /** withFaults replaces the fault list. */
  public ChaosConfig withFaults(List<Fault> f) {
    return new ChaosConfig(seed, iterationsPerFault, f, candidates, ttlSeconds, electionTimeoutMillis, preVote,
        rpcTimeoutMillis, requireLeader, pollMillis, thinkMillis, wallBudget, store);
  }

  /**
   * withStore replaces the backend.
   *
   * @param s the backend
   * @return the settings with {@code s}
   */
  public ChaosConfig withStore(Store s) {
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, ttlSeconds, electionTimeoutMillis, preVote,
        rpcTimeoutMillis, requireLeader, pollMillis, thinkMillis, wallBudget, s);
  }

  /** withWallBudget stops starting iterations once this much time has passed. */
  public ChaosConfig withWallBudget(Duration budget) {
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, ttlSeconds, electionTimeoutMillis, preVote,
        rpcTimeoutMillis, requireLeader, pollMillis, thinkMillis, budget, store);
  }

  /** withElectionTimeoutMillis sets etcd's election timeout. */
  public ChaosConfig withElectionTimeoutMillis(int ms) {
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, ttlSeconds, ms, preVote,
        rpcTimeoutMillis, requireLeader, pollMillis, thinkMillis, wallBudget, store);
  }

  /** withPreVote sets etcd's --pre-vote. */
  public ChaosConfig withPreVote(boolean on) {
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, ttlSeconds, electionTimeoutMillis, on,
        rpcTimeoutMillis, requireLeader, pollMillis, thinkMillis, wallBudget, store);
  }

  /** withRequireLeader sets whether candidates send etcd's hasleader metadata. */
  public ChaosConfig withRequireLeader(boolean on) {
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, ttlSeconds, electionTimeoutMillis, preVote,
        rpcTimeoutMillis, on, pollMillis, thinkMillis, wallBudget, store);
  }

  /**
   * withTtlSeconds sets the lease TTL, lowering the rpc timeout to TTL/4 where 750 ms would not
   * be under TTL/3 as core requires (TTL 2 s: 500 ms; TTL 3 s and more keep 750 ms).
   */
  public ChaosConfig withTtlSeconds(int s) {
    int rpc = rpcTimeoutMillis > 0 ? Math.min(rpcTimeoutMillis, s * 1000 / 4) : 0;
    return new ChaosConfig(seed, iterationsPerFault, faults, candidates, s, electionTimeoutMillis, preVote,
        rpc, requireLeader, pollMillis, thinkMillis, wallBudget, store);
  }
}
