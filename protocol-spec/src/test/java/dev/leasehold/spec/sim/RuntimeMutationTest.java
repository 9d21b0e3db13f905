package dev.leasehold.spec.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Simulation.Result;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RuntimeMutationTest shows the simulation tests core's runtime, not a copy of it: each
 * mutation below is made in core's own source file, compiled apart and run in a class loader
 * of its own ({@link RuntimeMutant}), and the simulation must catch it with the named
 * invariant within the budget, on a seed the faithful runtime passes. No production code has
 * a hook for this.
 *
 * <p>System property {@code sim.runtimeMutationBudget} (default 2000) bounds the seeds searched.
 */
class RuntimeMutationTest {
  private static final int BUDGET = Integer.getInteger("sim.runtimeMutationBudget", 2_000);

  /** RuntimeFault is one mutation of the runtime and the invariants expected to catch it. */
  enum RuntimeFault {
    /** Releases gives a lease up at its first failed attempt instead of retrying with backoff. */
    RELEASE_NEVER_RETRIED(
        "dev/leasehold/runtime/Releases.java",
        "lastFailure = failure;",
        "lastFailure = failure;\n"
            + "      if (true) { giveUp(failure); return; } // mutant: the first failure gives up",
        Set.of(Inv.RELEASED_LEASE_REVOKED, Inv.NO_LEASE_LEFT_BEHIND)),
    /** TermHandle.end() does nothing: a Leadership stays valid after its term was lost. */
    TERM_HANDLE_NEVER_ENDS(
        "dev/leasehold/runtime/TermHandle.java",
        "ended = true;",
        "// mutant: ended stays false",
        Set.of(Inv.EVENT_PAIRING, Inv.NO_OVERLAP, Inv.LEADERSHIP_AGREES_WITH_IS_LEADER)),
    /**
     * refreshSnapshot no longer ends the term when the role changes: only the loss event does.
     * A MASTER whose key was deleted steps down at once but publishes its loss only after the
     * lease probe, so its Leadership stays valid in between.
     */
    TERM_NOT_ENDED_ON_ROLE_CHANGE(
        "dev/leasehold/runtime/ElectorRuntime.java",
        "      term.end();\n    }\n    if (role",
        "    }\n    if (role",
        Set.of(Inv.LEADERSHIP_AGREES_WITH_IS_LEADER, Inv.NO_OVERLAP, Inv.EVENT_PAIRING)),
    /** A store call's RPC timeout does nothing: a lost request or reply is waited for forever. */
    STORE_CALL_NEVER_TIMES_OUT(
        "dev/leasehold/runtime/Calls.java",
        "() -> pending.settle(call.failed(timedOut), false),",
        "() -> { } /* mutant: the timeout settles nothing */,",
        Set.of(Inv.LIVENESS, Inv.CLOSE_COMPLETES));

    final String source;
    final String from;
    final String to;
    final Set<Inv> caughtBy;

    RuntimeFault(String source, String from, String to, Set<Inv> caughtBy) {
      this.source = source;
      this.from = from;
      this.to = to;
      this.caughtBy = caughtBy;
    }
  }

  @ParameterizedTest
  @EnumSource(RuntimeFault.class)
  void runtimeMutationIsCaught(RuntimeFault fault) throws Exception {
    try (RuntimeMutant mutant = new RuntimeMutant(fault.name(), fault.source, fault.from, fault.to)) {
      String mutated = fault.source.replace('/', '.').replace(".java", "");
      assertEquals(mutant.classesUri(), mutant.codeSourceOf(mutated), "the mutant's loader must use the mutated class");
      String checks = String.join(",", fault.caughtBy.stream().map(Enum::name).sorted().toList());
      String[] found = mutant.firstViolation(1, BUDGET, checks);
      assertNotNull(found, () -> fault + " survived " + BUDGET + " schedules (checks " + checks + ")");
      long seed = Long.parseLong(found[0]);
      System.out.println(fault + ": " + found[1] + " failed first at seed " + seed + " (" + found[3]
          + " schedules searched): " + found[2]);
      assertTrue(fault.caughtBy.contains(Inv.valueOf(found[1])), found[1]);
      Result faithful = SimRunner.replay(seed, Mutation.NONE, EnumSet.allOf(Inv.class), null, 0);
      assertTrue(faithful.ok(), () -> "the faithful runtime fails seed " + seed + " too: " + faithful.violation().getMessage());
    }
  }
}
