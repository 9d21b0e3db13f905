package dev.leasehold.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each {@code tla/MC_Sql*.cfg} is the MariaDB/MySQL model ({@code tla/LeaseholdSql.tla}) with one deliberate
 * protocol bug (see the SQL section of tla/README.md); TLC must find a counterexample to the named invariant.
 */
class TlcSqlMutationTest {

    /** TLC's exit status for a safety (invariant) violation. */
    private static final int EXIT_SAFETY_VIOLATION = 12;

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @ParameterizedTest(name = "{0} breaks {1}")
    @CsvSource({
        "MC_SqlReceiveTime,     NoOverlapInv",        // deadline from the renewal reply's receive time
        "MC_SqlFenceByHolder,   FencingMonotonicInv", // guard compares the candidate id, not epoch + holder
        "MC_SqlTakeOnLock,      NoOverlapInv",        // a follower woken by GET_LOCK takes at once
        "MC_SqlHolderIsId,      NoOverlapInv",        // holder = candidate id: an orphan releases another's row
        "MC_SqlServerClockOnly, NoOverlapInv",        // expiry by the server clock alone, which steps forward
        "MC_SqlNoLateWinCheck,  NoOverlapInv",        // a take answered after its deadline still makes a MASTER
        "MC_SqlGuardNoLock,     FencingMonotonicInv", // the guard reads without FOR SHARE
    })
    void mutationIsCaught(String config, String invariant) throws Exception {
        Tlc.Result r = Tlc.run(TlcSqlModelCheckTest.SPEC, config, TIMEOUT);
        System.out.println(r.summary());
        assertFalse(r.noErrorFound(), () -> config + ": TLC found no error, the mutation went undetected");
        assertEquals(invariant, r.violatedInvariant().orElse(null),
                () -> config + ": expected a violation of " + invariant + ":\n" + r.tail(80));
        assertEquals(EXIT_SAFETY_VIOLATION, r.exitCode(),
                () -> config + ": unexpected TLC exit status:\n" + r.tail(80));
    }
}
