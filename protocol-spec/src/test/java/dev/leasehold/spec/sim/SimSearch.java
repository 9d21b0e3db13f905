package dev.leasehold.spec.sim;

import dev.leasehold.spec.sim.Simulation.Inv;
import java.util.EnumSet;

/**
 * SimSearch is the simulation's entry point for callers in another class loader (see
 * {@link RuntimeMutationTest}): JDK types only across the boundary.
 *
 * <p>Thread-safe: each call runs its own simulations.
 */
public final class SimSearch {
  private SimSearch() {}

  /**
   * firstViolation runs seeds {@code firstSeed .. firstSeed + count - 1} of the faithful
   * simulation on one thread, checking only {@code checks} (comma-separated {@link Inv} names;
   * empty: all), and returns {@code {seed, invariant, message, schedules run}} of the first
   * violation, or null when every seed passed.
   */
  public static String[] firstViolation(long firstSeed, long count, String checks) {
    EnumSet<Inv> only = EnumSet.noneOf(Inv.class);
    for (String name : checks.split(",")) {
      if (!name.isBlank()) {
        only.add(Inv.valueOf(name.trim()));
      }
    }
    if (only.isEmpty()) {
      only = Simulation.all();
    }
    SimRunner.Summary s = SimRunner.run(firstSeed, count, Mutation.NONE, only, 1, 1);
    if (s.failures.isEmpty()) {
      return null;
    }
    Simulation.Result r = s.failures.get(0);
    return new String[] {
      Long.toString(r.scenario().seed), r.violation().inv.name(), r.violation().getMessage(),
      Long.toString(s.schedules())
    };
  }
}
