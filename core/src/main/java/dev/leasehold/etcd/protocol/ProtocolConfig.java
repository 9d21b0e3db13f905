package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorConfig;
import java.time.Duration;

/**
 * ProtocolConfig is the machine's view of the configuration: every duration in nanoseconds.
 *
 * <p>Immutable and thread-safe.
 *
 * @param candidateId this instance's label
 * @param requestedTtlSeconds the lease TTL to ask for; etcd may grant more
 * @param marginNanos subtracted from every local deadline
 * @param maxDriftRate bound on the local clock's rate error
 * @param pollIntervalNanos follower read period
 * @param backoffInitialNanos first retry delay
 * @param backoffMaxNanos largest retry delay
 * @param probeTimeoutNanos how long a MASTER that saw its key deleted waits to learn whether
 *     its lease went with it, before reporting the loss as KEY_DELETED
 * @param resignHoldoffNanos how long a resigned instance stays out of the election
 * @param standbyLease whether a follower keeps a confirmed lease ready, so that taking over
 *     costs one transaction instead of a lease grant and a transaction
 * @param priority this candidate's rank in the queue (its participant key spells it)
 * @param preemptAfterNanos how long a MASTER sees a higher-priority candidate before it hands
 *     over to it; negative: never
 * @param coldCampaign whether a candidate that starts campaigns before it reads the key (the
 *     cold campaign, PROTOCOL.md §4.5): a grant, then a campaign whose Else branch enlists it.
 *     {@link #from} sets it whenever standby leases are on; the shorter constructors, which the
 *     machine's tests of the read-first path use, leave it off
 */
public record ProtocolConfig(
    String candidateId,
    long requestedTtlSeconds,
    long marginNanos,
    double maxDriftRate,
    long pollIntervalNanos,
    long backoffInitialNanos,
    long backoffMaxNanos,
    long probeTimeoutNanos,
    long resignHoldoffNanos,
    boolean standbyLease,
    int priority,
    long preemptAfterNanos,
    boolean coldCampaign) {

  /**
   * RIDE_THROUGH_NANOS is the outage a MASTER's renewal cadence leaves room for when the TTL
   * allows (PROTOCOL.md §4.4): etcd's leader failover at its default 1 s election timeout (a
   * follower's randomized timeout in [1 s, 2 s) plus a vote), with a hedged call ({@code Hedge}
   * in the etcd driver) instead of a hung one.
   */
  public static final long RIDE_THROUGH_NANOS = 2_000_000_000L;

  /** ProtocolConfig is a config that starts with a read of the key, not a cold campaign. */
  public ProtocolConfig(
      String candidateId, long requestedTtlSeconds, long marginNanos, double maxDriftRate,
      long pollIntervalNanos, long backoffInitialNanos, long backoffMaxNanos, long probeTimeoutNanos,
      long resignHoldoffNanos, boolean standbyLease, int priority, long preemptAfterNanos) {
    this(candidateId, requestedTtlSeconds, marginNanos, maxDriftRate, pollIntervalNanos,
        backoffInitialNanos, backoffMaxNanos, probeTimeoutNanos, resignHoldoffNanos, standbyLease,
        priority, preemptAfterNanos, false);
  }

  /** preempts tells whether a MASTER hands over to a higher-priority candidate. */
  public boolean preempts() {
    return preemptAfterNanos >= 0;
  }

  /** ProtocolConfig is a config of priority 0 that never preempts. */
  public ProtocolConfig(
      String candidateId, long requestedTtlSeconds, long marginNanos, double maxDriftRate,
      long pollIntervalNanos, long backoffInitialNanos, long backoffMaxNanos, long probeTimeoutNanos,
      long resignHoldoffNanos, boolean standbyLease) {
    this(candidateId, requestedTtlSeconds, marginNanos, maxDriftRate, pollIntervalNanos,
        backoffInitialNanos, backoffMaxNanos, probeTimeoutNanos, resignHoldoffNanos, standbyLease, 0, -1,
        false);
  }

  /**
   * from derives the machine's config from a validated elector config.
   *
   * @param c the validated elector config
   * @return the machine's config: durations in nanoseconds, the TTL in whole seconds
   */
  public static ProtocolConfig from(ElectorConfig c) {
    return new ProtocolConfig(
        c.candidateId(),
        c.leaseTtl().toSeconds(),
        c.safetyMargin().toNanos(),
        c.maxDriftRate(),
        c.pollInterval().toNanos(),
        c.retryBackoffInitial().toNanos(),
        c.retryBackoffMax().toNanos(),
        Math.min(c.rpcTimeout().toNanos(), 250_000_000L),
        c.resignHoldoff().toNanos(),
        c.standbyLease(),
        c.priority(),
        c.preemptAfter().map(Duration::toNanos).orElse(-1L),
        c.standbyLease());
  }

  /**
   * deadline is the local deadline earned by a renewal sent at {@code sentAtNanos} and
   * confirmed with the given TTL: send time + TTL × (1 − maxDriftRate) − margin.
   *
   * @param sentAtNanos the monotonic time the renewal (or grant) was sent
   * @param ttlSeconds the TTL etcd granted
   * @return the deadline on the monotonic clock, in nanoseconds
   */
  public long deadline(long sentAtNanos, long ttlSeconds) {
    return sentAtNanos + (long) (ttlSeconds * 1_000_000_000L * (1 - maxDriftRate)) - marginNanos;
  }

  /**
   * coldGrantWaitNanos is how long a cold campaign's grant waits for its answer (PROTOCOL.md
   * §4.4): as long as the lease it brings can still campaign, its window (TTL × (1 − ρ) −
   * margin) less the TTL/6 a campaign needs left. In a cold start's herd the answers come late;
   * a grant given up at the RPC timeout is granted again, and its lease revoked, which is the
   * churn this wait prevents.
   *
   * @return the wait in nanoseconds, at the requested TTL
   */
  public long coldGrantWaitNanos() {
    return Math.max(0, deadline(0, requestedTtlSeconds) - requestedTtlSeconds * 1_000_000_000L / 6);
  }

  /**
   * masterRenewIntervalNanos is how long after its last confirmed renewal's send time a MASTER
   * on a lease of {@code ttlSeconds} renews (PROTOCOL.md §4.4): as late as leaves {@link
   * #RIDE_THROUGH_NANOS} of its window (TTL × (1 − ρ) − margin), between TTL/6 and TTL/2.
   *
   * @param ttlSeconds the TTL etcd granted
   * @return the interval in nanoseconds
   */
  public long masterRenewIntervalNanos(long ttlSeconds) {
    long ttl = ttlSeconds * 1_000_000_000L;
    return Math.max(ttl / 6, Math.min(ttl / 2, deadline(0, ttlSeconds) - RIDE_THROUGH_NANOS));
  }
}
