package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the TLA+ model of the SQL backend ({@code tla/LeaseholdSql.tla}) with TLC: the short configuration
 * (MariaDB/MySQL) and the PostgreSQL one must satisfy every invariant, and the model must not be vacuous.
 */
class TlcSqlModelCheckTest {

    static final String SPEC = "LeaseholdSql.tla";

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @Test
    void shortConfigurationSatisfiesAllInvariants() throws Exception {
        Tlc.assertHolds(SPEC, "LeaseholdSqlShort", TIMEOUT, 100_000);
    }

    /**
     * The PostgreSQL dialect (issue 25): the same lease row, woken by LISTEN/NOTIFY and by the holder's advisory lock,
     * each wake-up a hint that may arrive late, twice or never; the row still decides, so every invariant holds.
     */
    @Test
    void postgresWakeUpsLeaveEveryInvariantToTheRow() throws Exception {
        Tlc.assertHolds(SPEC, "LeaseholdSqlPg", TIMEOUT, 10_000);
    }

    /** Non-vacuity: a MASTER is reachable at all. */
    @Test
    void modelReachesAMaster() throws Exception {
        Tlc.assertViolates(SPEC, "Sanity_SqlMaster", TIMEOUT, "SanityNoMaster");
    }

    /**
     * Non-vacuity, deeper: after a server restart and a killed session, the MASTER of a second row incarnation
     * gets a renewal confirmed. If an edit made that unreachable, the invariants above would hold trivially.
     */
    @Test
    void modelReachesRenewalOfASecondMasterAfterRestartAndKill() throws Exception {
        Tlc.assertViolates(SPEC, "Sanity_SqlDeepRenewal", TIMEOUT, "SanityNoDeepRenewal");
    }
}
