package dev.leasehold.spec.sim.session;

import dev.leasehold.ElectorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * SessionScenario is one session simulation's world, drawn from its seed: 2 or 3 processes,
 * each with one session of 1 to 4 elections on the same keys, their settings and clocks, and
 * the faults of the first phase; then a quiet phase (faults healed, crashed processes back),
 * the close, and the end.
 *
 * <p>Immutable once built; safe to share.
 */
final class SessionScenario {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  /** Kind names a fault. */
  enum Kind {
    PARTITION, PAUSE, CRASH, LEADER_LOSS, STALL_WATCH, SLOW, LOSSY, RESIGN,
    /** The elections' loop alone is held up (thousands of elections' inputs ahead), the lease's runs. */
    BUSY_ELECTIONS,
    /** One election is closed, and after {@code length} opened again under the same name. */
    REOPEN
  }

  /** Fault is one fault: at {@code at}, on process {@code slot} (or key index), for {@code length}. */
  record Fault(long at, Kind kind, int slot, int key, long length) {}

  final long seed;
  final int n;
  final List<String> keys = new ArrayList<>();
  final ElectorConfig[] configs;
  final double[] rates;
  final long[] startAt;
  final List<Fault> faults = new ArrayList<>();
  final long quietAt;
  final long livenessBound;
  final long closeAt;
  final long endAt;
  final long ttlSeconds;
  /**
   * spread: in one scenario of five, the sessions spread their elections (PROTOCOL.md §11.7),
   * with weight 1 each, over 3 to 5 elections; drawn from a second generator, so the scenarios without it stay as they were.
   */
  final boolean spread;
  /** skewFrom: from then until the close, the live processes' leaderships differ by at most one. */
  final long skewFrom;
  /** busyAtClose: how long each process's elections' loop is held up as the close begins (0: not). */
  final long[] busyAtClose;

  SessionScenario(long seed) {
    this.seed = seed;
    SplittableRandom r = new SplittableRandom(seed);
    n = 2 + r.nextInt(2);
    int k = 1 + r.nextInt(4);
    for (int i = 0; i < k; i++) {
      keys.add("/sim/s/e" + i);
    }
    ttlSeconds = r.nextInt(3) == 0 ? 3 : 2;
    long third = ttlSeconds * 1000 / 3 - 1;
    Duration rpcTimeout = Duration.ofMillis(r.nextBoolean() ? Math.min(500, third) : 250);
    Duration backoffInitial = Duration.ofMillis(r.nextBoolean() ? 50 : 100);
    Duration backoffMax = Duration.ofMillis(r.nextBoolean() ? 500 : 1000);
    double rho = r.nextBoolean() ? 0.01 : 0.05;
    boolean sameId = r.nextInt(5) == 0;
    configs = new ElectorConfig[n];
    rates = new double[n];
    startAt = new long[n];
    busyAtClose = new long[n];
    for (int i = 0; i < n; i++) {
      configs[i] = ElectorConfig.builder()
          .electionKey("/sim/s/")
          .candidateId(sameId && i == 1 ? "p0" : "p" + i)
          .leaseTtl(Duration.ofSeconds(ttlSeconds))
          .maxDriftRate(rho)
          .rpcTimeout(rpcTimeout)
          .retryBackoff(backoffInitial, backoffMax)
          .closeOnShutdown(false)
          .build();
      rates[i] = 1 + (r.nextDouble() * 2 - 1) * rho * 0.99;
      startAt[i] = r.nextLong(500 * MS);
      busyAtClose[i] = r.nextBoolean() ? r.nextLong(300 * MS) : 0;
    }
    quietAt = (10 + r.nextInt(11)) * S;
    int count = 3 + r.nextInt(10);
    Kind[] kinds = Kind.values();
    long ttl = ttlSeconds * S;
    for (int i = 0; i < count; i++) {
      long at = S / 2 + r.nextLong(quietAt - S);
      Kind kind = kinds[r.nextInt(kinds.length)];
      long length = switch (kind) {
        case PARTITION -> 200 * MS + r.nextLong(ttl * 5 / 2);
        case PAUSE -> 100 * MS + r.nextLong(ttl + S);
        case CRASH -> 300 * MS + r.nextLong(2 * S);
        case LEADER_LOSS -> 300 * MS + r.nextLong(2 * S);
        case SLOW -> 500 * MS + r.nextLong(3 * S);
        case LOSSY -> 200 * MS + r.nextLong(2 * S);
        case BUSY_ELECTIONS -> 10 * MS + r.nextLong(500 * MS);
        case REOPEN -> r.nextLong(2 * S);
        case STALL_WATCH, RESIGN -> 0;
      };
      faults.add(new Fault(at, kind, r.nextInt(n), r.nextInt(k), length));
    }
    faults.sort((a, b) -> Long.compare(a.at(), b.at()));
    // After quiet: a crashed holder's key outlives it by its TTL, an etcd leader change and a
    // sweep; a stalled watch is found within two renewals; a campaign may wait a backoff.
    livenessBound = 3 * ttl + 2 * S + backoffMax.toNanos();
    SplittableRandom r2 = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 28);
    spread = r2.nextInt(5) == 0;
    for (int i = k; spread && i < 3 + r2.nextInt(3); i++) {
      keys.add("/sim/s/e" + i);
    }
    // Spread: once every key is led (the liveness bound), a member registers at its next renewal,
    // plans after a renewal with no member change, and its moves land within a renewal or two;
    // views that differ for a while cost a few rounds more. Two TTLs (six renewals) cover it.
    skewFrom = quietAt + livenessBound + 2 * ttl;
    closeAt = spread ? skewFrom + 3 * S : quietAt + livenessBound + 3 * S;
    endAt = closeAt + 4 * rpcTimeout.toNanos() + ttl + 3 * S;
  }

  @Override
  public String toString() {
    ElectorConfig c = configs[0];
    return "seed " + seed + ": " + n + " processes x " + keys.size() + " elections, ttl " + ttlSeconds + "s, rpcTimeout "
        + c.rpcTimeout().toMillis() + "ms, backoff " + c.retryBackoffInitial().toMillis() + "-"
        + c.retryBackoffMax().toMillis() + "ms, drift " + c.maxDriftRate() + ", quiet at "
        + quietAt / MS + "ms" + (spread ? ", spread" : "") + ", faults " + faults;
  }
}
