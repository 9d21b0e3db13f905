package dev.leasehold.spec.sim.session;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/**
 * SessionSimulationTest runs {@link SessionSim} over many seeds against core's real session
 * machines and runtime. System properties: {@code sim.sessionSchedules} (default 500) and
 * {@code sim.sessionFirstSeed} (default 1).
 */
class SessionSimulationTest {
  private static final int SCHEDULES = Integer.getInteger("sim.sessionSchedules", 500);
  private static final long FIRST_SEED = Long.getLong("sim.sessionFirstSeed", 1);

  @Test
  void sessionsKeepEveryInvariantUnderFaults() {
    long longestGap = 0;
    long events = 0;
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      SessionSim.Result r = new SessionSim(new SessionScenario(seed), SimHub.Mutation.NONE, 400).run();
      if (!r.ok()) {
        fail(r.violation().getMessage() + "\n" + r.scenario() + "\n  " + String.join("\n  ", r.trace()));
      }
      longestGap = Math.max(longestGap, r.longestGap());
      events += r.events();
      r.counts().forEach((k, v) -> counts.merge(k, v, Long::sum));
    }
    System.out.printf("session simulation: %d schedules from seed %d, %d events, longest leaderless stretch after"
        + " quiet %.3f s; exercised: %s%n", SCHEDULES, FIRST_SEED, events, longestGap / 1e9, counts);
  }
}
