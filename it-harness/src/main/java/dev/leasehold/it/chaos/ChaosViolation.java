package dev.leasehold.it.chaos;

/**
 * ChaosViolation is one broken promise found by {@link HistoryChecker}, at a monotonic time,
 * attributed to the fault window it fell in.
 *
 * <p>Immutable; safe to share.
 */
public record ChaosViolation(ChaosViolation.Kind kind, long at, String fault, int iteration, String detail) {
  /** Kind is the check a violation broke. */
  public enum Kind {
    OVERLAP,
    STALE_WRITE,
    COUNTER,
    LIVENESS,
    SPURIOUS_LOSS,
    /** SKEW: a spreading fleet did not lead every shard with skew ≤ 1 in time after a storm ({@link SpreadBalance}). */
    SKEW
  }

  @Override
  public String toString() {
    return kind + " at " + at + " (iteration " + iteration + ", " + fault + "): " + detail;
  }
}
