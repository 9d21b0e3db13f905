package dev.leasehold;

import static dev.leasehold.ElectorConfig.MAX_LEASE_TTL;
import static dev.leasehold.ElectorConfig.human;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * ConfigChecks validates the backend-neutral settings as a whole; each error names the field
 * and the bad value.
 *
 * <p>Stateless and thread-safe.
 */
final class ConfigChecks {
  private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

  private ConfigChecks() {}

  /**
   * validate checks every field of {@code s} and the relations between them. The lease TTL is
   * first checked against its store's rule: at least {@code minTtl} and a whole number of
   * {@code ttlUnit}s ({@code unitReason}, when not null, says why in the error).
   */
  static void validate(
      ElectorConfig.Settings<?> s, Duration minTtl, Duration ttlUnit, String unitReason) {
    if (s.electionKey == null || s.electionKey.isBlank()) {
      throw new IllegalArgumentException(
          "electionKey must be a non-blank string, but was " + quote(s.electionKey));
    }
    if (s.candidateId != null && s.candidateId.isBlank()) {
      throw new IllegalArgumentException(
          "candidateId must be non-blank when set, but was " + quote(s.candidateId));
    }
    requirePositive("leaseTtl", s.leaseTtl);
    if (s.leaseTtl.compareTo(minTtl) < 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be >= " + human(minTtl) + ", but was " + human(s.leaseTtl));
    }
    if (s.leaseTtl.compareTo(MAX_LEASE_TTL) > 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be <= " + MAX_LEASE_TTL.getSeconds() + "s (etcd's largest TTL), but was "
              + human(s.leaseTtl));
    }
    if (s.leaseTtl.toNanos() % ttlUnit.toNanos() != 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be a whole number of " + unitName(ttlUnit)
              + (unitReason == null ? "" : " (" + unitReason + ")") + ", but was "
              + exact(s.leaseTtl));
    }
    if (!(s.maxDriftRate >= 0 && s.maxDriftRate < 0.1)) {
      throw new IllegalArgumentException(
          "maxDriftRate must be in [0, 0.1), but was " + s.maxDriftRate);
    }
    Duration margin = s.safetyMargin != null ? s.safetyMargin : s.leaseTtl.dividedBy(10);
    if (margin.isNegative()) {
      throw new IllegalArgumentException(
          "safetyMargin must be >= 0, but was " + human(margin));
    }
    requireNanos("safetyMargin", margin);
    // The deadline window must hold at least two renewals (one every TTL/3), or a single
    // slow round trip would cost leadership.
    long ttlNanos = s.leaseTtl.toNanos();
    long window = (long) (ttlNanos * (1 - s.maxDriftRate)) - margin.toNanos();
    long twoRenewals = 2 * (ttlNanos / 3);
    if (window <= twoRenewals) {
      Duration maxMargin =
          Duration.ofNanos(Math.max(0, (long) (ttlNanos * (1 - s.maxDriftRate)) - twoRenewals));
      throw new IllegalArgumentException(
          "safetyMargin leaves no time to renew: with leaseTtl " + human(s.leaseTtl)
              + " and maxDriftRate " + s.maxDriftRate + " it must be < " + human(maxMargin)
              + ", but was " + human(margin));
    }
    requirePositive("pollInterval", s.pollInterval);
    requireNanos("pollInterval", s.pollInterval);
    if (s.pollInterval.compareTo(Duration.ofMillis(10)) < 0) {
      throw new IllegalArgumentException(
          "pollInterval must be >= 10ms, but was " + human(s.pollInterval));
    }
    Duration rpc = s.rpcTimeout != null ? s.rpcTimeout : ElectorConfig.defaultRpcTimeout(s.leaseTtl);
    requirePositive("rpcTimeout", rpc);
    if (rpc.compareTo(s.leaseTtl.dividedBy(3)) >= 0) {
      throw new IllegalArgumentException(
          "rpcTimeout must be < leaseTtl/3 (" + human(s.leaseTtl.dividedBy(3)) + "), but was "
              + human(rpc));
    }
    requirePositive("retryBackoffInitial", s.retryBackoffInitial);
    requirePositive("retryBackoffMax", s.retryBackoffMax);
    requireNanos("retryBackoffMax", s.retryBackoffMax);
    if (s.retryBackoffMax.compareTo(s.retryBackoffInitial) < 0) {
      throw new IllegalArgumentException(
          "retryBackoffMax must be >= retryBackoffInitial (" + human(s.retryBackoffInitial)
              + "), but was " + human(s.retryBackoffMax));
    }
    if (s.resignHoldoff != null && s.resignHoldoff.isNegative()) {
      throw new IllegalArgumentException(
          "resignHoldoff must be >= 0, but was " + human(s.resignHoldoff));
    }
    if (s.resignHoldoff != null) {
      requireNanos("resignHoldoff", s.resignHoldoff);
    }
  }

  private static void requirePositive(String field, Duration d) {
    if (d == null) {
      throw new IllegalArgumentException(field + " must be set, but was null");
    }
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + human(d));
    }
  }

  /** requireNanos rejects durations the monotonic clock's nanoseconds cannot hold. */
  private static void requireNanos(String field, Duration d) {
    if (d.compareTo(MAX_NANOS) > 0) {
      throw new IllegalArgumentException(
          field + " must be <= " + MAX_NANOS.toDays() + " days, but was " + human(d));
    }
  }

  /** exact prints a duration of a second or more to the nanosecond ("1.5005s"); human rounds to ms. */
  private static String exact(Duration d) {
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return human(d);
    }
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9))
        .stripTrailingZeros().toPlainString() + "s";
  }

  private static String unitName(Duration unit) {
    if (unit.equals(Duration.ofSeconds(1))) {
      return "seconds";
    }
    return unit.equals(Duration.ofMillis(1)) ? "milliseconds" : human(unit) + " steps";
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

}
