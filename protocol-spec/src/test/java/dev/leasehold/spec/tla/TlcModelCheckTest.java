package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the TLA+ model of the protocol ({@code tla/Leasehold.tla}) with TLC: the short configuration must
 * satisfy every invariant, and the model must not be vacuous.
 */
class TlcModelCheckTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @Test
    void shortConfigurationSatisfiesAllInvariants() throws Exception {
        Tlc.assertHolds(Tlc.SPEC, "LeaseholdShort", TIMEOUT, 10_000);
    }

    /**
     * The handover (PROTOCOL.md §4.5): a resigning MASTER hands the key to a follower's standby lease and the
     * follower adopts it; the short configuration with one handover, without etcd leader changes and admin
     * deletion (tla/README.md gives the larger scopes checked by hand).
     */
    @Test
    void handoverConfigurationSatisfiesAllInvariants() throws Exception {
        Tlc.assertHolds(Tlc.SPEC, "LeaseholdHandover", TIMEOUT, 10_000);
    }

    /**
     * Non-vacuity: the second incarnation's MASTER must be able to get a keep-alive ack, after an etcd leader
     * change, that is about to confirm a renewal. If an edit made that unreachable, the invariants above would
     * hold trivially.
     */
    @Test
    void modelReachesRenewalOfASecondMasterAfterLeaderChange() throws Exception {
        Tlc.assertViolates(Tlc.SPEC, "Sanity_DeepRenewal", TIMEOUT, "SanityNoDeepRenewal");
    }

    /**
     * Non-vacuity of the default path: a follower must be able to renew its standby lease, have the renewal
     * confirmed, and win a campaign with that lease. Otherwise the standby path would satisfy the invariants
     * trivially.
     */
    @Test
    void modelReachesATakeoverWithARenewedStandbyLease() throws Exception {
        Tlc.assertViolates(Tlc.SPEC, "Sanity_StandbyTakeover", TIMEOUT, "SanityNoStandbyTakeover");
    }

    /**
     * Non-vacuity of the handover: a MASTER must be able to hand the key over and the successor to adopt it (a
     * MASTER owning a key whose mod revision is not its create revision). Otherwise the handover configuration
     * would satisfy the invariants trivially.
     */
    @Test
    void modelReachesAnAdoptionAfterAHandover() throws Exception {
        Tlc.assertViolates(Tlc.SPEC, "Sanity_Handover", TIMEOUT, "SanityNoHandover");
    }

    /** The sessions model: many elections on one etcd lease per client (PROTOCOL.md §11, Sessions). */
    static final String SESSION_SPEC = "LeaseholdSession.tla";

    /**
     * Sessions: two clients, each with one lease at a time, two elections, fenced deletes retried and applied
     * late, campaign calls given up on, orphan cleanup; every invariant must hold.
     */
    @Test
    void sessionConfigurationSatisfiesAllInvariants() throws Exception {
        Tlc.assertHolds(SESSION_SPEC, "LeaseholdSession", TIMEOUT, 10_000);
    }

    /**
     * Non-vacuity of the sessions model: a client must be able to win an election, resign it and win it again on
     * the same lease (the case a retried fenced delete of the first term must not break).
     */
    @Test
    void sessionModelReachesASecondTermOnTheSameLease() throws Exception {
        Tlc.assertViolates(SESSION_SPEC, "Sanity_SessionReWin", TIMEOUT, "SanityNoReWin");
    }

    /** Non-vacuity of the sessions model: one client must be able to lead both elections on its one lease. */
    @Test
    void sessionModelReachesOneClientLeadingTwoElections() throws Exception {
        Tlc.assertViolates(SESSION_SPEC, "Sanity_SessionTwoElections", TIMEOUT, "SanityNoTwoElections");
    }
}
