package dev.leasehold.spec.sim.session;

/**
 * SessionSearch is the session simulation's entry point for callers in another class loader
 * (a {@code RuntimeMutant}'s): JDK types only across the boundary.
 *
 * <p>Thread-safe: each call runs its own simulations.
 */
public final class SessionSearch {
  private SessionSearch() {}

  /**
   * firstViolation runs seeds {@code firstSeed .. firstSeed + count - 1} with the hub rules
   * {@code hubMutation} (a {@link SimHub.Mutation} name) and returns {@code {seed, invariant,
   * message, schedules run}} of the first violation, or null when every seed passed.
   */
  public static String[] firstViolation(long firstSeed, long count, String hubMutation) {
    SimHub.Mutation m = SimHub.Mutation.valueOf(hubMutation);
    for (long seed = firstSeed; seed < firstSeed + count; seed++) {
      SessionSim.Result r = new SessionSim(new SessionScenario(seed), m, 0).run();
      if (!r.ok()) {
        return new String[] {
          Long.toString(seed), r.violation().inv.name(), r.violation().getMessage(), Long.toString(seed - firstSeed + 1)
        };
      }
    }
    return null;
  }
}
