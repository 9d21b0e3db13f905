package dev.leasehold.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the TLA+ model of the MariaDB/MySQL backend ({@code tla/LeaseholdSql.tla}) with TLC: the short
 * configuration must satisfy every invariant, and the model must not be vacuous.
 */
class TlcSqlModelCheckTest {

    static final String SPEC = "LeaseholdSql.tla";

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @Test
    void shortConfigurationSatisfiesAllInvariants() throws Exception {
        Tlc.Result r = Tlc.run(SPEC, "LeaseholdSqlShort", TIMEOUT);
        System.out.println(r.summary());
        assertEquals(0, r.exitCode(), () -> "TLC failed on LeaseholdSqlShort:\n" + r.tail(80));
        assertTrue(r.noErrorFound(), () -> "TLC did not report success:\n" + r.tail(80));
        long states = r.distinctStates().orElseThrow(() -> new AssertionError("no state count in:\n" + r.tail(40)));
        // Guards against a configuration that silently collapses the model (e.g. a broken Init or Next).
        assertTrue(states > 100_000, "suspiciously small state space: " + states);
    }

    /** Non-vacuity: a MASTER is reachable at all. */
    @Test
    void modelReachesAMaster() throws Exception {
        Tlc.Result r = Tlc.run(SPEC, "Sanity_SqlMaster", TIMEOUT);
        System.out.println(r.summary());
        assertEquals("SanityNoMaster", r.violatedInvariant().orElse(null),
                () -> "expected the sanity invariant to be violated:\n" + r.tail(80));
    }

    /**
     * Non-vacuity, deeper: after a server restart and a killed session, the MASTER of a second row incarnation
     * gets a renewal confirmed. If an edit made that unreachable, the invariants above would hold trivially.
     */
    @Test
    void modelReachesRenewalOfASecondMasterAfterRestartAndKill() throws Exception {
        Tlc.Result r = Tlc.run(SPEC, "Sanity_SqlDeepRenewal", TIMEOUT);
        System.out.println(r.summary());
        assertEquals("SanityNoDeepRenewal", r.violatedInvariant().orElse(null),
                () -> "expected the sanity invariant to be violated:\n" + r.tail(80));
    }
}
