package dev.leasehold.runtime;

import dev.leasehold.LeadershipEvent.Cause;

/**
 * Reachability is the one count of a machine's store trouble (PROTOCOL.md §9): failed calls
 * since the last progress, and whether an outage was reported. An outage is due for a report
 * once it lasts, {@code lasting} failed calls without progress, or at once when the store
 * refused for a {@link ConfigurationErrors configuration error}, which also counts as enough
 * failures for the backoff to reach its maximum from any configured initial value. The next
 * progress after a report is due for a recovery.
 *
 * <p>It decides when, not how: {@link Roles} reports as {@code STORE_UNAVAILABLE} and {@code
 * STORE_RECOVERED} events (and may hold them back), the session's lease as its news to the
 * elections; either says what it reported with {@link #told}.
 *
 * <p>Pure and not thread-safe: owned by one machine, stepped on one event loop.
 */
public final class Reachability {
  /** LASTING is how many failed calls without progress make an outage of an etcd elector worth reporting. */
  public static final int LASTING = 3;
  // Enough failures for the backoff to reach its maximum from any configured initial value.
  private static final int CONFIGURATION_FAILURES = 64;

  private final int lasting;
  private long failures;
  private boolean unavailable;
  private String reason;

  /**
   * Reachability reports an outage after {@code lasting} failed calls without progress: {@link
   * #LASTING} for etcd, where a cold client's first call may time out; 1 where the store's own
   * report already waited (a session's elections) or where any failure ends the session the
   * calls ran on (SQL).
   *
   * @param lasting how many failed calls in a row make an outage, at least 1
   */
  public Reachability(int lasting) {
    if (lasting < 1) {
      throw new IllegalArgumentException("lasting must be >= 1, but was " + lasting);
    }
    this.lasting = lasting;
  }

  /**
   * begin notes the reason of the step's input if it reports a failed call (null otherwise).
   *
   * @param input the step's input
   */
  public void begin(Input input) {
    reason = input instanceof Input.Failed f ? f.reason() : null;
  }

  /**
   * reason is the reason of the failed call this step handles, or null.
   *
   * @return the reason, or null when the step's input is no failed call
   */
  public String reason() {
    return reason;
  }

  /**
   * failures is the count of failed calls since the last progress, for the retry backoff.
   *
   * @return the count, 0 after progress
   */
  public long failures() {
    return failures;
  }

  /**
   * isUnavailable is true between a reported outage and the report of its end.
   *
   * @return true while an outage is reported and its end is not
   */
  public boolean isUnavailable() {
    return unavailable;
  }

  /**
   * failed counts a failed call and tells whether the outage is now due for a report.
   *
   * @return true when STORE_UNAVAILABLE should be published now
   */
  public boolean failed() {
    boolean configuration = ConfigurationErrors.is(reason);
    failures = configuration ? Math.max(failures + 1, CONFIGURATION_FAILURES) : failures + 1;
    return !unavailable && (configuration || failures >= lasting);
  }

  /**
   * progressed ends the count and tells whether a reported outage is now due for its end's report.
   *
   * @return true when STORE_RECOVERED should be published now
   */
  public boolean progressed() {
    failures = 0;
    return unavailable;
  }

  /**
   * told records an event the listeners were given: STORE_UNAVAILABLE and STORE_RECOVERED mark the
   * outage's report.
   *
   * @param cause the cause of the event told
   */
  public void told(Cause cause) {
    if (cause == Cause.STORE_UNAVAILABLE) {
      unavailable = true;
    } else if (cause == Cause.STORE_RECOVERED) {
      unavailable = false;
    }
  }
}
