package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each {@code tla/MC_Sql*.cfg} is the SQL model ({@code tla/LeaseholdSql.tla}) with one deliberate
 * protocol bug (see the SQL section of tla/README.md); TLC must find a counterexample to the named invariant.
 */
class TlcSqlMutationTest {

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
        "MC_SqlWakeDecides,     NoOverlapInv",        // a late notification makes a follower take the row at once
        "MC_SqlWakeDecidesLock, NoOverlapInv",        // the same, woken by a late grant of the holder's session lock
    })
    void mutationIsCaught(String config, String invariant) throws Exception {
        Tlc.assertViolates(TlcSqlModelCheckTest.SPEC, config, TIMEOUT, invariant);
    }
}
