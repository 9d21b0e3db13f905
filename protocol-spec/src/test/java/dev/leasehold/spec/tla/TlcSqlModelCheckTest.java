package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Model-checks the TLA+ model of the SQL backend ({@code tla/LeaseholdSql.tla}) with TLC: the short configuration
 * (MariaDB/MySQL) and the PostgreSQL one must satisfy every invariant, and the model must not be vacuous.
 */
class TlcSqlModelCheckTest {

    static final String SPEC = "LeaseholdSql.tla";

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @ParameterizedTest(name = "{0} satisfies every invariant")
    @CsvSource({
        // MariaDB/MySQL: lost and late replies, a killed session, a server restart, server-clock steps, crashes,
        // guarded writes, two candidates sharing one id
        "LeaseholdSqlShort",
        // the PostgreSQL dialect (issue 25): the same lease row, woken by LISTEN/NOTIFY and by the holder's
        // advisory lock, each wake-up a hint that may arrive late, twice or never; the row still decides
        "LeaseholdSqlPg",
    })
    void configurationSatisfiesEveryInvariant(String config) throws Exception {
        Tlc.assertHolds(SPEC, config, TIMEOUT, 10_000);
    }

    /** Non-vacuity: if an edit made these unreachable, the invariants above could hold trivially. */
    @ParameterizedTest(name = "{0} reaches what {1} rules out")
    @CsvSource({
        // a MASTER at all
        "Sanity_SqlMaster,      SanityNoMaster",
        // after a server restart and a killed session, the MASTER of a second row incarnation gets a renewal
        // confirmed
        "Sanity_SqlDeepRenewal, SanityNoDeepRenewal",
    })
    void modelReachesWhatTheSanityTargetRulesOut(String config, String target) throws Exception {
        Tlc.assertViolates(SPEC, config, TIMEOUT, target);
    }
}
