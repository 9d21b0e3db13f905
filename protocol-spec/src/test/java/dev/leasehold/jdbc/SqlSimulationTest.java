package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leasehold.spec.sim.RuntimeMutant;
import java.lang.reflect.Method;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SqlSimulationTest runs the SQL simulation ({@link SqlSim}) over many seeds: the real
 * ElectorRuntime and SqlMachine against the simulated server, every invariant checked. The
 * server's wake-up lock is a session lock, recursive and freed with its session, which is what
 * both MariaDB's GET_LOCK and PostgreSQL's advisory lock are; every fourth schedule runs
 * PostgreSQL behind a transaction pooler instead, where no wake-up ever comes.
 *
 * <p>System properties: {@code sim.schedules} (default 2000) and {@code sim.firstSeed}
 * (default 1); {@code sim.seed} replays one seed and prints its trace.
 *
 * <p>It also shows the simulation tests core's real SqlMachine: each {@link SqlFault} is made in
 * core's own source, compiled apart and run in a class loader of its own ({@link RuntimeMutant}),
 * with no hook in production code; the simulation must catch it with a named invariant within
 * {@code sim.sqlMutationBudget} seeds (default 4000), on a seed the faithful machine passes.
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
      // Every fourth schedule runs PostgreSQL behind a transaction pooler: no wake-up at all.
      SqlSim sim = new SqlSim(s, s % 4 == 3);
      try {
        sim.run();
      } catch (SqlSim.Violation v) {
        fail("seed " + s + (sim.pooled ? " (pooled)" : "") + ": " + v.getMessage() + "\nreplay: -Dsim.seed=" + s
            + sim.traceTail());
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

  private static final int BUDGET = Integer.getInteger("sim.sqlMutationBudget", 4_000);

  /** SqlFault is one mutation of the SQL machine and the invariants expected to catch it. */
  enum SqlFault {
    /** A MASTER's deadline counts from the renewal reply's arrival, not from its send time. */
    DEADLINE_FROM_REPLY_ARRIVAL(
        "dev/leasehold/jdbc/SqlMaster.java",
        "config.deadline(renewSentAt)",
        "config.deadline(now)",
        Set.of(SqlSim.Inv.NO_OVERLAP)),
    /** A FOLLOWER takes when the server's clock says expired, without its own observed wait. */
    SERVER_CLOCK_ALONE_EXPIRES(
        "dev/leasehold/jdbc/SqlFollower.java",
        "row.expired() && observed.left(config.observedWaitNanos(row.ttlMicros()), now) <= 0",
        "row.expired()",
        Set.of(SqlSim.Inv.NO_OVERLAP));

    final String source;
    final String from;
    final String to;
    final Set<SqlSim.Inv> caughtBy;

    SqlFault(String source, String from, String to, Set<SqlSim.Inv> caughtBy) {
      this.source = source;
      this.from = from;
      this.to = to;
      this.caughtBy = caughtBy;
    }
  }

  @ParameterizedTest
  @EnumSource(SqlFault.class)
  void sqlMutationIsCaught(SqlFault fault) throws Exception {
    try (RuntimeMutant mutant = new RuntimeMutant(fault.name(), fault.source, fault.from, fault.to)) {
      String mutated = fault.source.replace('/', '.').replace(".java", "");
      assertEquals(mutant.classesUri(), mutant.codeSourceOf(mutated), "the mutant's loader must use the mutated class");
      Method search = mutant.load().loadClass(SqlSim.class.getName()).getMethod("firstViolation", long.class, long.class);
      search.setAccessible(true);
      String[] found = (String[]) search.invoke(null, 1L, (long) BUDGET);
      assertNotNull(found, () -> fault + " survived " + BUDGET + " schedules");
      long seed = Long.parseLong(found[0]);
      System.out.println(fault + ": " + found[1] + " first at seed " + seed + ": " + found[2]);
      assertTrue(fault.caughtBy.contains(SqlSim.Inv.valueOf(found[1])), found[2]);
      assertNull(SqlSim.firstViolation(seed, 1), "the faithful machine fails seed " + seed + " too");
    }
  }
}
