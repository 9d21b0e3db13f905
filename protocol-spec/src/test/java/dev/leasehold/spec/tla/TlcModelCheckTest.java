package dev.leasehold.spec.tla;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Model-checks the TLA+ models of the protocol on etcd ({@code tla/Leasehold.tla}) and of sessions ({@code
 * tla/LeaseholdSession.tla}) with TLC: each checked configuration must satisfy every invariant, and each model must
 * not be vacuous (tla/README.md gives the larger scopes checked by hand).
 */
class TlcModelCheckTest {

    /** The sessions model: many elections on one etcd lease per client (PROTOCOL.md §11, Sessions). */
    static final String SESSION_SPEC = "LeaseholdSession.tla";

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @ParameterizedTest(name = "{1} satisfies every invariant")
    @CsvSource({
        // the default path: standby leases, the lease probe, the resign hold-off, a stray campaign copy, an etcd
        // leader change, admin deletion, crashes
        "Leasehold.tla,        LeaseholdShort",
        // the handover (PROTOCOL.md §4.5) on resign() and by issue 28's placement moves (transferTo, preemption,
        // yielding when unhealthy): two per run, so that a move can follow a move; no etcd leader change
        "Leasehold.tla,        LeaseholdHandover",
        // sessions: two clients, each with one lease at a time, two elections, fenced deletes retried and applied
        // late, campaign calls given up on, orphan cleanup
        "LeaseholdSession.tla, LeaseholdSession",
        // sessions with issue 28's moves: a leader hands K(e) to another client's session lease in one Txn fenced
        // on its token, the target adopts it; two moves, crashes (a target that dies at once)
        "LeaseholdSession.tla, LeaseholdSessionTransfer",
    })
    void configurationSatisfiesEveryInvariant(String spec, String config) throws Exception {
        Tlc.assertHolds(spec, config, TIMEOUT, 10_000);
    }

    /**
     * Non-vacuity: each configuration's target invariant rules out a behaviour the model must be able to reach. If
     * an edit made it unreachable, the invariants above could hold trivially.
     */
    @ParameterizedTest(name = "{1} reaches what {2} rules out")
    @CsvSource({
        // the second incarnation's MASTER gets a keep-alive ack, after an etcd leader change, that is about to
        // confirm a renewal
        "Leasehold.tla,        Sanity_DeepRenewal,         SanityNoDeepRenewal",
        // a follower renews its standby lease, has the renewal confirmed, and wins a campaign with that lease
        "Leasehold.tla,        Sanity_StandbyTakeover,     SanityNoStandbyTakeover",
        // a MASTER hands the key over and the successor adopts it (its mod revision is not its create revision)
        "Leasehold.tla,        Sanity_Handover,            SanityNoHandover",
        // a transfer to a target that dies at once: the key goes with the target's lease and a later term begins
        "Leasehold.tla,        Sanity_TransferDeadTarget,  SanityNoTermAfterDeadTarget",
        // a client wins an election, resigns it and wins it again on the same lease (the case a retried fenced
        // delete of the first term must not break)
        "LeaseholdSession.tla, Sanity_SessionReWin,        SanityNoReWin",
        // one client leads both elections on its one lease
        "LeaseholdSession.tla, Sanity_SessionTwoElections, SanityNoTwoElections",
        // a client leads a key that a move gave it
        "LeaseholdSession.tla, Sanity_SessionTransfer,     SanityNoAdoption",
        // a move to a target that dies at once: the key goes with its lease and another term of the election begins
        "LeaseholdSession.tla, Sanity_SessionDeadTarget,   SanityNoTermAfterDeadTarget",
    })
    void modelReachesWhatTheSanityTargetRulesOut(String spec, String config, String target) throws Exception {
        Tlc.assertViolates(spec, config, TIMEOUT, target);
    }
}
