package dev.leasehold;

import static dev.leasehold.Durations.human;

import java.time.Duration;

/**
 * HealthPolicy holds how an elector follows the user's {@link HealthCheck}: the check, how often
 * it is polled, and how many answers in a row change the elector's view (the hysteresis that
 * keeps a flapping check from moving leadership at each flap), validated together.
 *
 * <p>Immutable and thread-safe (the check itself is the user's).
 *
 * @param check the user's probe, or null when no check is set
 * @param interval how often the check is polled
 * @param threshold how many answers in a row, opposite to the current view, change it
 */
record HealthPolicy(HealthCheck check, Duration interval, int threshold) {
  /** DEFAULT_INTERVAL is how often a check is polled unless configured. */
  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  /** DEFAULT_THRESHOLD is how many answers in a row change the view unless configured. */
  static final int DEFAULT_THRESHOLD = 3;

  /** of validates the interval and the threshold, named as the builder's fields. */
  static HealthPolicy of(HealthCheck check, Duration interval, int threshold) {
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("healthCheckInterval must be > 0, but was "
          + (interval == null ? "null" : human(interval)));
    }
    ElectorConfig.requireNanos("healthCheckInterval", interval);
    if (interval.compareTo(Duration.ofMillis(10)) < 0) {
      throw new IllegalArgumentException("healthCheckInterval must be >= 10ms, but was " + human(interval));
    }
    if (threshold < 1) {
      throw new IllegalArgumentException("healthCheckThreshold must be >= 1, but was " + threshold);
    }
    return new HealthPolicy(check, interval, threshold);
  }

  @Override
  public String toString() {
    return check == null ? "" : ", healthCheck every " + human(interval) + " (" + threshold + " in a row)";
  }
}
