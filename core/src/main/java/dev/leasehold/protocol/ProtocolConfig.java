package dev.leasehold.protocol;

import dev.leasehold.ElectorConfig;

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
    boolean standbyLease) {

  /** from derives the machine's config from a validated elector config. */
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
        c.standbyLease());
  }

  /**
   * deadline is the local deadline earned by a renewal sent at {@code sentAtNanos} and
   * confirmed with the given TTL: send time + TTL × (1 − maxDriftRate) − margin.
   */
  public long deadline(long sentAtNanos, long ttlSeconds) {
    return sentAtNanos + (long) (ttlSeconds * 1_000_000_000L * (1 - maxDriftRate)) - marginNanos;
  }
}
