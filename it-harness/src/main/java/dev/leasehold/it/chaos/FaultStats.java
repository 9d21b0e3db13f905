package dev.leasehold.it.chaos;

/**
 * FaultStats are one fault's numbers in the summary table, counted by {@link HistoryChecker}.
 * Mutable while the checker counts, read-only after; not thread-safe.
 */
public final class FaultStats {
  int iterations;
  int overlaps;
  int excusedOverlaps;
  int staleAccepted;
  int fenced;
  long longestLeaderless;
  long longestTimeToMaster;
  int livenessMisses;
  int spuriousLosses;
  int excusedByStall;
  int clockBeyondBoundOverlaps;

  /** iterations is how many times the fault ran. */
  public int iterations() {
    return iterations;
  }

  /** overlaps counts unexcused overlapping intervals. */
  public int overlaps() {
    return overlaps;
  }

  /** staleAccepted counts stale writes the store accepted. */
  public int staleAccepted() {
    return staleAccepted;
  }

  /** spuriousLosses counts losses of a healthy MASTER. */
  public int spuriousLosses() {
    return spuriousLosses;
  }

  /** longestLeaderlessNanos is the longest time without a MASTER seen after this fault's injection. */
  public long longestLeaderlessNanos() {
    return longestLeaderless;
  }

  /** add folds another fault's numbers into these (sums, and the longest of the longest). */
  void add(FaultStats s) {
    iterations += s.iterations;
    overlaps += s.overlaps;
    excusedOverlaps += s.excusedOverlaps;
    staleAccepted += s.staleAccepted;
    fenced += s.fenced;
    longestLeaderless = Math.max(longestLeaderless, s.longestLeaderless);
    longestTimeToMaster = Math.max(longestTimeToMaster, s.longestTimeToMaster);
    livenessMisses += s.livenessMisses;
    spuriousLosses += s.spuriousLosses;
    excusedByStall += s.excusedByStall;
    clockBeyondBoundOverlaps += s.clockBeyondBoundOverlaps;
  }

  /** appendRow appends this fault's row of the summary table, named {@code name}. */
  void appendRow(StringBuilder b, String name) {
    b.append("| ").append(name).append(" | ").append(iterations).append(" | ").append(overlaps)
        .append(" | ").append(staleAccepted).append(" | ").append(HistoryChecker.ms(longestLeaderless))
        .append(" | ").append(spuriousLosses).append(" | ").append(excusedOverlaps)
        .append(" | ").append(fenced).append(" | ").append(HistoryChecker.ms(longestTimeToMaster))
        .append(" | ").append(livenessMisses).append(" | ").append(excusedByStall)
        .append(" | ").append(clockBeyondBoundOverlaps).append(" |\n");
  }
}
