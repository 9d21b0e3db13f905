package dev.leasehold;

import static dev.leasehold.Durations.human;

import java.time.Duration;

/**
 * Placement holds the settings that choose where leadership lands (PROTOCOL.md §4.5): the
 * candidate's priority and the MASTER's preemption delay, validated together with the standby
 * lease they need (the queue is kept on it).
 *
 * <p>Immutable and thread-safe.
 *
 * @param priority the candidate's rank in the queue; higher leads first
 * @param preemptAfter how long a MASTER sees a higher-priority candidate before it hands over,
 *     or null for never
 */
record Placement(int priority, Duration preemptAfter) {
  /** of validates the settings against the standby lease they need. */
  static Placement of(int priority, Duration preemptAfter, boolean standbyLease) {
    if (preemptAfter != null) {
      if (preemptAfter.isNegative()) {
        throw new IllegalArgumentException("preemptAfter must be >= 0, but was " + human(preemptAfter));
      }
      ElectorConfig.requireNanos("preemptAfter", preemptAfter);
    }
    if (!standbyLease && (priority != 0 || preemptAfter != null)) {
      String field = priority != 0 ? "priority" : "preemptAfter";
      Object value = priority != 0 ? priority : human(preemptAfter);
      throw new IllegalArgumentException(
          field + " needs the queue, which is kept on standby leases: set standbyLease(true), but "
              + field + " was " + value + " with standbyLease false");
    }
    return new Placement(priority, preemptAfter);
  }

  @Override
  public String toString() {
    return (priority != 0 ? ", priority=" + priority : "")
        + (preemptAfter != null ? ", preemptAfter=" + human(preemptAfter) : "");
  }
}
