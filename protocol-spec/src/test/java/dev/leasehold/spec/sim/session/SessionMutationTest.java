package dev.leasehold.spec.sim.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.spec.sim.RuntimeMutant;
import dev.leasehold.spec.sim.session.SessionChecks.Inv;
import java.lang.reflect.InvocationTargetException;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SessionMutationTest shows the session simulation can fail: each mutation of core's own
 * session machines (made in core's source, compiled apart, run in a loader of its own by
 * {@link RuntimeMutant}), and each change to the simulated hub's rules, must be caught by one of
 * the named invariants within the budget, on a seed the faithful code passes.
 *
 * <p>System property {@code sim.sessionMutationBudget} (default 1000) bounds the seeds searched.
 */
class SessionMutationTest {
  private static final int BUDGET = Integer.getInteger("sim.sessionMutationBudget", 1_000);

  /** CoreFault is one mutation of core's session machines. */
  enum CoreFault {
    /** An election ignores the lease's end: it leads on into the next lease's deadlines. */
    LEASE_END_IGNORED(
        "dev/leasehold/etcd/protocol/SessionElection.java",
        "    if (e.leaseId() != leaseId) {\n      return;\n    }\n    if (e.cause() == Cause.CLOSED) {",
        "    if (true) {\n      return; // mutant: the lease's end is ignored\n    }\n    if (e.cause() == Cause.CLOSED) {",
        Set.of(Inv.MASTER_OWNS_KEY, Inv.NO_OVERLAP)),
    /** An election trusts the session's lease 2 s past the deadline the session computed. */
    DEADLINE_EXTENDED(
        "dev/leasehold/etcd/protocol/SessionElection.java",
        "deadline = l.deadline();",
        "deadline = l.deadline() + 2_000_000_000L; // mutant: 2 s past the lease's deadline",
        Set.of(Inv.MASTER_OWNS_KEY, Inv.NO_OVERLAP)),
    /** A spreading move keeps leading until the watch shows the key moved (PROTOCOL.md §11.7). */
    MOVE_BEFORE_STEPPING_DOWN(
        "dev/leasehold/etcd/protocol/SessionElection.java",
        "    stepDown(unhealthy ? Cause.UNHEALTHY : Cause.RESIGNED, now);\n    transferOp = fx.id();",
        "    transferOp = fx.id(); // mutant: still MASTER while the move is sent",
        Set.of(Inv.MASTER_OWNS_KEY, Inv.NO_OVERLAP)),
    /** The target adopts any key on its lease naming it, not only one a move wrote (§11.2). */
    ADOPT_OWN_CAMPAIGNS_KEY(
        "dev/leasehold/etcd/protocol/SessionElection.java",
        "&& k.createRevision() != k.modRevision() && k.modRevision() > Math.max(gaveUp, firstRevision)",
        "/* mutant: any key of its own is adopted */",
        Set.of(Inv.MASTER_OWNS_KEY, Inv.NO_OVERLAP, Inv.FENCING_MONOTONIC));

    final String source;
    final String from;
    final String to;
    final Set<Inv> caughtBy;

    CoreFault(String source, String from, String to, Set<Inv> caughtBy) {
      this.source = source;
      this.from = from;
      this.to = to;
      this.caughtBy = caughtBy;
    }
  }

  @ParameterizedTest
  @EnumSource(CoreFault.class)
  void coreMutationIsCaught(CoreFault fault) throws Exception {
    try (RuntimeMutant mutant = new RuntimeMutant(fault.name(), fault.source, fault.from, fault.to)) {
      String mutated = fault.source.replace('/', '.').replace(".java", "");
      assertEquals(mutant.classesUri(), mutant.codeSourceOf(mutated), "the mutant's loader must use the mutated class");
      String[] found;
      try {
        found = (String[]) mutant.load().loadClass(SessionSearch.class.getName())
            .getMethod("firstViolation", long.class, long.class, String.class)
            .invoke(null, 1L, (long) BUDGET, SimHub.Mutation.NONE.name());
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(fault + ": the simulation failed in the mutant's loader", e.getCause());
      }
      assertCaught(fault.name(), found, fault.caughtBy);
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimHub.Mutation.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void hubMutationIsCaught(SimHub.Mutation m) {
    Set<Inv> caughtBy = m == SimHub.Mutation.REVOKE_AT_ONCE
        ? Set.of(Inv.MASTER_OWNS_KEY, Inv.NO_OVERLAP)
        : Set.of(Inv.LIVENESS);
    assertCaught(m.name(), SessionSearch.firstViolation(1, BUDGET, m.name()), caughtBy);
  }

  private static void assertCaught(String name, String[] found, Set<Inv> caughtBy) {
    assertNotNull(found, () -> name + " survived " + BUDGET + " schedules");
    long seed = Long.parseLong(found[0]);
    System.out.println(name + ": " + found[1] + " failed first at seed " + seed + " (" + found[3]
        + " schedules searched): " + found[2]);
    assertTrue(caughtBy.contains(Inv.valueOf(found[1])), found[1] + ": " + found[2]);
    assertNull(SessionSearch.firstViolation(seed, 1, SimHub.Mutation.NONE.name()),
        () -> "the faithful code fails seed " + seed + " too");
  }
}
