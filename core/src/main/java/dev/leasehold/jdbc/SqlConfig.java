package dev.leasehold.jdbc;

import dev.leasehold.ElectorConfig;

/**
 * SqlConfig is the SQL machine's view of the configuration: every duration in nanoseconds.
 *
 * <p>Immutable and thread-safe.
 *
 * @param candidateId this instance's label, written to the row's {@code candidate} column
 * @param table the lease table's name, kept in each term for the guard
 * @param name the election name, the row's primary key
 * @param ttlNanos the TTL, a whole number of milliseconds
 * @param marginNanos subtracted from every local deadline
 * @param maxDriftRate ρ, the bound on the candidates' clock rate error
 * @param pollIntervalNanos the longest a follower goes without an S1 (its GET_LOCK timeout)
 * @param backoffInitialNanos the first retry delay after an error
 * @param backoffMaxNanos the largest retry delay
 * @param resignHoldoffNanos how long a resigned instance stays out of the election
 */
record SqlConfig(
    String candidateId,
    String table,
    String name,
    long ttlNanos,
    long marginNanos,
    double maxDriftRate,
    long pollIntervalNanos,
    long backoffInitialNanos,
    long backoffMaxNanos,
    long resignHoldoffNanos) {

  /** from derives the machine's config from a validated elector config and the table's name. */
  static SqlConfig from(ElectorConfig c, String table) {
    return new SqlConfig(
        c.candidateId(),
        table,
        c.electionKey(),
        c.leaseTtl().toNanos(),
        c.safetyMargin().toNanos(),
        c.maxDriftRate(),
        c.pollInterval().toNanos(),
        c.retryBackoffInitial().toNanos(),
        c.retryBackoffMax().toNanos(),
        c.resignHoldoff().toNanos());
  }

  /** ttlMicros is the TTL the row gets from this instance's takes and renewals. */
  long ttlMicros() {
    return ttlNanos / 1_000;
  }

  /** deadline is the local deadline a write sent at {@code sentAt} earns: s + TTL × (1 − ρ) − margin. */
  long deadline(long sentAt) {
    return sentAt + (long) (ttlNanos * (1 - maxDriftRate)) - marginNanos;
  }

  /** renewIntervalNanos is TTL/6, the MASTER's renewal period. */
  long renewIntervalNanos() {
    return ttlNanos / 6;
  }

  /** observedWaitNanos is {@code ttl_us × (1 + ρ)}: how long a follower sees one (holder, version) before taking. */
  long observedWaitNanos(long rowTtlMicros) {
    return (long) (rowTtlMicros * 1_000 * (1 + maxDriftRate));
  }

  /**
   * waitFloorNanos is the shortest GET_LOCK wait or re-read delay, so that a follower whose
   * observed wait has run out while the server's clock still says "not expired" re-reads
   * without spinning.
   */
  long waitFloorNanos() {
    return Math.min(pollIntervalNanos, backoffInitialNanos);
  }
}
