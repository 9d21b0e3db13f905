package dev.leasehold;

import java.time.Duration;
import java.util.Objects;

/**
 * Renewal is one confirmed renewal of the lease an elector holds, as {@link
 * LeaderElector#onRenewal} reports it: the MASTER's term lease, or a follower's standby lease
 * (a lease's grant, or the SQL take, counts as its first renewal). Immutable and thread-safe.
 *
 * @param role the elector's role when the renewal was confirmed
 * @param roundTrip from sending the renewal to its confirmation (etcd and local: keep-alive ack
 *     and the confirming read; SQL: the conditional UPDATE and its commit)
 * @param nanoTime the elector's monotonic clock at the confirmation
 */
public record Renewal(ElectorState role, Duration roundTrip, long nanoTime) {
  /**
   * Renewal rejects null components and a negative round trip.
   *
   * @param role the role, not null
   * @param roundTrip the round trip, not null and not negative
   * @param nanoTime the monotonic time of the confirmation
   * @throws IllegalArgumentException for a negative round trip
   */
  public Renewal {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(roundTrip, "roundTrip");
    if (roundTrip.isNegative()) {
      throw new IllegalArgumentException("roundTrip must be >= 0, but was " + roundTrip);
    }
  }
}
