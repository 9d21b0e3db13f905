package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/**
 * SqlSimulationTest runs the SQL simulation ({@link SqlSim}) over many seeds: the real
 * ElectorRuntime and SqlMachine against the simulated server, every invariant checked.
 *
 * <p>System properties: {@code sim.schedules} (default 2000) and {@code sim.firstSeed}
 * (default 1); {@code sim.seed} replays one seed and prints its trace.
 */
class SqlSimulationTest {
  private static final long SCHEDULES = Long.getLong("sim.schedules", 2_000);
  private static final long FIRST = Long.getLong("sim.firstSeed", 1);

  @Test
  void schedulesKeepEveryInvariant() {
    Long only = Long.getLong("sim.seed");
    long first = only != null ? only : FIRST;
    long count = only != null ? 1 : SCHEDULES;
    long started = System.nanoTime();
    long events = 0;
    long elected = 0;
    for (long s = first; s < first + count; s++) {
      SqlSim sim = new SqlSim(s);
      try {
        sim.run();
      } catch (SqlSim.Violation v) {
        fail("seed " + s + ": " + v.getMessage() + "\nreplay: -Dsim.seed=" + s + sim.traceTail());
      }
      events += sim.events;
      elected += sim.elected;
      if (only != null) {
        System.out.println(sim.traceTail());
      }
    }
    System.out.printf("SqlSimulationTest: %d schedules, %d events, %d terms, %.1f s%n", count, events, elected,
        (System.nanoTime() - started) / 1e9);
  }
}
