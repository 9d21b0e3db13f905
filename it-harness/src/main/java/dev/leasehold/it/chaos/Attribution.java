package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.ChaosViolation.Kind;
import dev.leasehold.it.chaos.ChaosViolation;
import java.util.List;
import java.util.Map;

/**
 * Attribution finds the fault window (from one injection to the next) a time falls in, for
 * {@link HistoryChecker}'s counts and violations. Immutable after construction; thread-safe.
 */
final class Attribution {
  private final List<FaultWindow> faults;

  Attribution(History h) {
    this.faults = h.faults();
  }

  FaultWindow at(long t) {
    FaultWindow found = null;
    for (FaultWindow f : faults) {
      if (f.inject() <= t) {
        found = f;
      }
    }
    return found;
  }

  FaultStats stats(Map<String, FaultStats> stats, long t) {
    FaultWindow f = at(t);
    return f == null ? stats.computeIfAbsent(HistoryChecker.WARMUP, k -> new FaultStats()) : stats.get(f.fault());
  }

  ChaosViolation violation(ChaosViolation.Kind kind, long t, String detail) {
    FaultWindow f = at(t);
    return new ChaosViolation(kind, t, f == null ? HistoryChecker.WARMUP : f.fault(), f == null ? 0 : f.iteration(), detail);
  }
}
