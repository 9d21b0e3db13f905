package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each {@code tla/MC_*.cfg} is the model with one deliberate protocol bug (see tla/README.md); TLC must find a
 * counterexample to the named invariant. This shows the invariants and the model are strong enough to catch it.
 */
class TlcMutationTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @ParameterizedTest(name = "{0} breaks {1}")
    @CsvSource({
        "MC_ReceiveTime,        NoOverlapInv",        // (a) deadline from the ack's receive time
        "MC_NoMargin,           OneMasterRoleInv",    // (b) margin 0 while step-down lags (clock form holds)
        "MC_AckOnly,            NoOverlapInv",        // (c) renewal confirmed by the ack alone, isolated leader acks
        "MC_NoTermCheck,        NoOverlapInv",        // (c') read done but raft term not compared
        "MC_OwnerByValue,       NoOverlapInv",        // (d) same candidate id, ownership by value
        "MC_NoDriftFactor,      OneMasterRoleInv",    // (e) no (1 - rho) factor (clock form holds)
        "MC_FenceByValue,       FencingMonotonicInv", // (f) guarded write compares the value, not the create revision
        "MC_NoLateWinCheck,     OneMasterRoleInv",    // (g) a campaign won after its deadline still makes a MASTER
        "MC_StandbyUnconfirmed, NoOverlapInv",        // (h) standby lease's deadline from a keep-alive ack alone
        "MC_HandoverUnfenced,   NoOverlapInv",        // (i) handover / transfer Txn without its ModRevision(K) == token compare
        "MC_AdoptUnconfirmed,   OneMasterRoleInv",    // (j) adoption whatever the standby lease's deadline
        "MC_TokenIsCreateRevision, FencingMonotonicInv", // (k) token = create revision: a handover keeps it
    })
    void mutationIsCaught(String config, String invariant) throws Exception {
        Tlc.assertViolates(Tlc.SPEC, config, TIMEOUT, invariant);
    }

    /**
     * The sessions model ({@code tla/LeaseholdSession.tla}) with one deliberate bug each ({@code
     * tla/MC_Session*.cfg}).
     */
    @ParameterizedTest(name = "{0} breaks {1}")
    @CsvSource({
        "MC_SessionDeleteByLease, HolderOwnsKey", // fenced delete compares the lease, not the token
        "MC_SessionAdoptOwnKey,   HolderOwnsKey", // a follower adopts K(e) on its own lease instead of deleting it
        "MC_SessionLeadOnLateWin, HolderOwnsKey", // a success after give-up / session change still makes a MASTER
        "MC_SessionTransferUnfenced, NoOverlap",  // a move's Txn without its ModRevision(K(e)) == token compare
        "MC_SessionReleaseFirst,  NoOverlap",     // a rebalancing move that releases K(e) before the target holds it
    })
    void sessionMutationIsCaught(String config, String invariant) throws Exception {
        Tlc.assertViolates(TlcModelCheckTest.SESSION_SPEC, config, TIMEOUT, invariant);
    }
}
