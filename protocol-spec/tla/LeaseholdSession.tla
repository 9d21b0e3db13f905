-------------------------- MODULE LeaseholdSession --------------------------
(***************************************************************************)
(* Many elections on one etcd lease (PROTOCOL.md 11, "Sessions").  Each    *)
(* client runs one SESSION: at most one etcd lease at a time, sessLease[c] *)
(* (0 = none).  Each election e has one key K(e), bound to the lease of    *)
(* the client that created it.  The fencing token of a term is K(e)'s mod  *)
(* revision when the term began; resign deletes K(e) by a FENCED DELETE    *)
(* (If ModRevision(K(e)) == token Then Delete(K(e))), which is retried and *)
(* may be applied late, also after its client won e again on the same      *)
(* lease.  A follower that sees K(e) on its own lease with no campaign     *)
(* outstanding deletes it (ORPHAN cleanup) and never adopts it, unless a   *)
(* move gave it the key (PLACEMENT MOVES, below).                          *)
(*                                                                         *)
(* THE LEASE ABSTRACTION.  A session's renewal (keep-alive, confirming     *)
(* linearizable read, deadline from the keep-alive's send time with the    *)
(* drift factor and margin) is exactly the single-election lease of        *)
(* Leasehold.tla, where HeldLeaseOutlivesDeadlineInv is checked.  Here it  *)
(* is abstracted to its consequence: the client's local deadline dl[c]     *)
(* (ticks left) is always below the lease's remaining time at etcd         *)
(* leaseRem[l] (checked: DeadlineBeforeExpiry).  No clock drift, lag,      *)
(* pauses or etcd leader changes are modelled here.                        *)
(*                                                                         *)
(* MESSAGES.  creq / crep / dreq / treq are the campaign requests,        *)
(* campaign replies, fenced deletes and moves in flight.  etcd applies a   *)
(* request at any later step, replies arrive at any later step, anything   *)
(* may be lost.                                                            *)
(* A campaign message's flag cur says the client still waits for that     *)
(* call: GiveUp (the call's timeout) clears it on every message of the     *)
(* call, which stands for the call ids of the code.  A fenced delete is    *)
(* retried: a copy applied may leave another copy in flight (ApplyDelete). *)
(*                                                                         *)
(* HOLD-OFF.  After Resign(c, e) the code sits out a hold-off for e, and    *)
(* does not campaign for e while its own fenced delete (or cleanup delete)   *)
(* for e is outstanding.  Both only disable Campaign(c, e), and both may     *)
(* end at any later step (HoldoffEnds, the delete's reply or give-up), also  *)
(* at once.  So they are left out: every state reachable with them is        *)
(* reachable without them, and the other way round, up to those flags.       *)
(*                                                                         *)
(* CALLS.  A model bound: a client campaigns for e only when no message of  *)
(* an earlier campaign call of its own for e is still in flight (the code    *)
(* may start a new call while an abandoned one is still in the network).     *)
(*                                                                         *)
(* REVISIONS.  rev counts puts only.  A delete's own revision is never     *)
(* compared (a deleted key has no mod revision and the next put gets a     *)
(* revision above every earlier one either way), so not counting deletes   *)
(* changes no outcome and only saves budget.  K(e) keeps its create        *)
(* revision crev: a campaign's put sets both, a move only the mod revision. *)
(*                                                                         *)
(* PLACEMENT MOVES (issue 28).  transferTo(d), a priority preemption (d    *)
(* ranks above the leader and has waited the preemption delay), a leader   *)
(* that yields when unhealthy (d the next healthy member), an operator's   *)
(* `leasehold transfer --to d`, and a rebalancing move (the leader holds   *)
(* more than its share, d less) are one and the same step at the store: a  *)
(* MOVE, Transfer(c, e, d), which hands K(e) to d's session lease in one    *)
(* transaction fenced on c's token.  What chose d is not a variable: the   *)
(* model lets any live d be chosen at any step.  d ADOPTS K(e) when it     *)
(* sees it on its own session lease, naming it, with crev # mrev (a move,  *)
(* not a campaign of its own) and a mod revision above any term of e it     *)
(* gave up (Adopt).                                                         *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, TLC

CONSTANTS
    Cands,             \* clients (model values; symmetric)
    Elections,         \* elections (model values; each has one key K(e))
    TTL,               \* lease TTL in ticks
    Margin,            \* dl = TTL - Margin after a grant or renewal
    MaxLeases,         \* lease ids etcd may grant (whole run)
    MaxRev,            \* puts etcd may apply (whole run)
    AllowCrash,        \* a client may crash (stops; its lease expires later)
    MaxMoves,          \* placement moves (Transfer) sent in a run; 0: none
    TrackReWin,        \* keep the history `won' (only for Sanity_SessionReWin)
    TrackDeadTarget,   \* keep the history `deadMove' (only for Sanity_SessionDeadTarget)
    \* ---- mutations (all FALSE for the real protocol) ----
    MUT_DELETE_BY_LEASE,  \* fenced delete compares Lease(K(e)) == sessLease[c]
    MUT_ADOPT_OWN_KEY,    \* a follower that sees K(e) on its own lease adopts it
    MUT_LEAD_ON_LATE_WIN, \* a success reply after give-up / session change => MASTER
    MUT_TRANSFER_UNFENCED, \* the move's Txn lacks its ModRevision(K(e)) == token compare
    MUT_RELEASE_FIRST     \* a move releases K(e) (fenced delete) first, then puts it for d

ASSUME /\ TTL \in Nat /\ Margin \in Nat \ {0} /\ Margin < TTL
       /\ MaxLeases \in Nat \ {0} /\ MaxRev \in Nat \ {0} /\ MaxMoves \in Nat

FOLLOWER == "FOLLOWER"
MASTER == "MASTER"
NoC == "none"
LeaseIds == 1..MaxLeases
NoKey == [crev |-> 0, mrev |-> 0, lease |-> 0, holder |-> NoC]
Keys == [crev : 0..MaxRev, mrev : 0..MaxRev, lease : 0..MaxLeases, holder : Cands \cup {NoC}]
Max(a, b) == IF a > b THEN a ELSE b

VARIABLES
    up,         \* client running (FALSE after Crash)
    sessLease,  \* c -> the session's lease (0: none)
    dl,         \* c -> ticks until the session's local deadline (0: passed)
    leaseRem,   \* lease -> ticks until expiry at etcd (0: gone, or never granted)
    nextLease,  \* next lease id etcd grants
    key,        \* e -> K(e) (NoKey: absent)
    rev,        \* revision of the latest put
    role,       \* c -> e -> FOLLOWER | MASTER
    token,      \* c -> e -> the token of c's current / last term of e
    pend,       \* c -> e -> a campaign call of c for e is outstanding
    creq,       \* campaign requests in flight
    crep,       \* campaign replies in flight
    dreq,       \* fenced deletes in flight (copies of retried calls)
    treq,       \* moves in flight (Transfer's transactions)
    moves,      \* scope: moves sent so far
    maxTok,     \* history: e -> highest token of any term of e
    tokOk,      \* history: every new term's token exceeded maxTok
    won,        \* history (TrackReWin only): <<c, e, lease, token>> of every term
    deadMove    \* history (TrackDeadTarget only): e -> mod revision of a K(e) moved to a
                \*   client that was down, or went down before adopting it (0: none)

vars == <<up, sessLease, dl, leaseRem, nextLease, key, rev, role, token, pend,
          creq, crep, dreq, treq, moves, maxTok, tokOk, won, deadMove>>
(* Clients and elections are each symmetric: every pair of permutations.   *)
Symm == {[x \in Cands \cup Elections |-> IF x \in Cands THEN p[x] ELSE q[x]] :
            p \in Permutations(Cands), q \in Permutations(Elections)}

CReq == [c : Cands, e : Elections, l : LeaseIds, cur : BOOLEAN]
CRep == [c : Cands, e : Elections, l : LeaseIds, cur : BOOLEAN, ok : BOOLEAN, kv : Keys]
DReq == [c : Cands, e : Elections, r : 1..MaxRev, l : LeaseIds]
(* A move: c hands K(e), which it led with token tok, to d's session lease  *)
(* to (as c saw it).  fenced: the Txn compares ModRevision(K(e)) == tok      *)
(* (FALSE only under the mutations).                                         *)
TReq == [c : Cands, e : Elections, tok : 1..MaxRev, to : LeaseIds, d : Cands, fenced : BOOLEAN]
Live(c) == up[c] /\ dl[c] > 0     \* the session is before its local deadline

TypeOK ==
    /\ up \in [Cands -> BOOLEAN]
    /\ sessLease \in [Cands -> 0..MaxLeases] /\ dl \in [Cands -> 0..TTL]
    /\ leaseRem \in [LeaseIds -> 0..TTL] /\ nextLease \in 1..(MaxLeases + 1)
    /\ key \in [Elections -> Keys] /\ rev \in 0..MaxRev
    /\ role \in [Cands -> [Elections -> {FOLLOWER, MASTER}]]
    /\ token \in [Cands -> [Elections -> 0..MaxRev]]
    /\ pend \in [Cands -> [Elections -> BOOLEAN]]
    /\ creq \subseteq CReq /\ crep \subseteq CRep /\ dreq \subseteq DReq
    /\ treq \subseteq TReq /\ moves \in 0..MaxMoves
    /\ maxTok \in [Elections -> 0..MaxRev] /\ tokOk \in BOOLEAN
    /\ won \subseteq Cands \X Elections \X LeaseIds \X (0..MaxRev)
    /\ deadMove \in [Elections -> 0..MaxRev]

Init ==
    /\ up = [c \in Cands |-> TRUE]
    /\ sessLease = [c \in Cands |-> 0] /\ dl = [c \in Cands |-> 0]
    /\ leaseRem = [l \in LeaseIds |-> 0] /\ nextLease = 1
    /\ key = [e \in Elections |-> NoKey] /\ rev = 0
    /\ role = [c \in Cands |-> [e \in Elections |-> FOLLOWER]]
    /\ token = [c \in Cands |-> [e \in Elections |-> 0]]
    /\ pend = [c \in Cands |-> [e \in Elections |-> FALSE]]
    /\ creq = {} /\ crep = {} /\ dreq = {} /\ treq = {} /\ moves = 0
    /\ maxTok = [e \in Elections |-> 0] /\ tokOk = TRUE /\ won = {}
    /\ deadMove = [e \in Elections |-> 0]

(* etcd deletes every key bound to a lease in D (the lease expired or was   *)
(* revoked).                                                                *)
KeysWithout(D) == [e \in Elections |-> IF key[e].lease \in D THEN NoKey ELSE key[e]]

(* K(e) as a move wrote it (a campaign's put sets both revisions).          *)
Moved(k) == k.crev # k.mrev
(* K(e) moved to c and not yet adopted: on c's session lease, naming c, at  *)
(* a mod revision above the token of every term of e c gave up (its own     *)
(* key, moved to it earlier and given up since, is not adopted again).      *)
MovedTo(c, e) ==
    /\ sessLease[c] # 0 /\ key[e].lease = sessLease[c] /\ key[e].holder = c
    /\ Moved(key[e]) /\ key[e].mrev > token[c][e]

LeaseVars == <<up, sessLease, dl, leaseRem, nextLease>>
ElecVars == <<role, token, pend>>
MsgVars == <<creq, crep, dreq, treq, moves>>
HistVars == <<maxTok, tokOk, won, deadMove>>

-----------------------------------------------------------------------------
(******************************** The session *******************************)

Grant(c) ==
    /\ up[c] /\ sessLease[c] = 0 /\ nextLease <= MaxLeases
    /\ sessLease' = [sessLease EXCEPT ![c] = nextLease]
    /\ leaseRem' = [leaseRem EXCEPT ![nextLease] = TTL]
    /\ dl' = [dl EXCEPT ![c] = TTL - Margin]
    /\ nextLease' = nextLease + 1
    /\ UNCHANGED <<up, key, rev>> /\ UNCHANGED <<ElecVars, MsgVars, HistVars>>

(* A confirmed renewal (Leasehold.tla's SendKeepAlive .. Confirm, abstracted). *)
Renew(c) ==
    /\ Live(c) /\ leaseRem[sessLease[c]] > 0 /\ dl[c] < TTL - Margin
    /\ leaseRem' = [leaseRem EXCEPT ![sessLease[c]] = TTL]
    /\ dl' = [dl EXCEPT ![c] = TTL - Margin]
    /\ UNCHANGED <<up, sessLease, nextLease, key, rev>>
    /\ UNCHANGED <<ElecVars, MsgVars, HistVars>>

(* One unit of time: deadlines and leases count down; a lease reaching 0    *)
(* expires, and etcd deletes it and every key bound to it.                  *)
Tick ==
    /\ leaseRem' = [l \in LeaseIds |-> Max(leaseRem[l] - 1, 0)]
    /\ dl' = [c \in Cands |-> Max(dl[c] - 1, 0)]
    /\ key' = KeysWithout({l \in LeaseIds : leaseRem[l] = 1})
    /\ UNCHANGED <<up, sessLease, nextLease, rev>> /\ UNCHANGED <<ElecVars, MsgVars, HistVars>>

(* The deadline passed: every election of c that was MASTER ends (each with  *)
(* its own event) and c revokes the lease (Revoke, below) and may Grant a   *)
(* new one.                                                                 *)
SessionLost(c) ==
    /\ up[c] /\ sessLease[c] # 0 /\ dl[c] = 0
    /\ role' = [role EXCEPT ![c] = [e \in Elections |-> FOLLOWER]]
    /\ sessLease' = [sessLease EXCEPT ![c] = 0]
    /\ UNCHANGED <<up, dl, leaseRem, nextLease, key, rev>>
    /\ UNCHANGED <<token, pend>> /\ UNCHANGED <<MsgVars, HistVars>>

(* etcd applies a revoke of a lease no session holds (given back after       *)
(* SessionLost; a crashed client's too, which over-approximates its expiry).  *)
(* A revoke that is never applied is the same as a lost one: expiry follows. *)
Revoke(l) ==
    /\ leaseRem[l] > 0 /\ \A c \in Cands : sessLease[c] # l
    /\ leaseRem' = [leaseRem EXCEPT ![l] = 0] /\ key' = KeysWithout({l})
    /\ UNCHANGED <<up, sessLease, dl, nextLease, rev>> /\ UNCHANGED <<ElecVars, MsgVars, HistVars>>

Crash(c) ==
    /\ AllowCrash /\ up[c]
    /\ up' = [up EXCEPT ![c] = FALSE] /\ sessLease' = [sessLease EXCEPT ![c] = 0]
    /\ dl' = [dl EXCEPT ![c] = 0]
    /\ role' = [role EXCEPT ![c] = [e \in Elections |-> FOLLOWER]]
    /\ deadMove' = [e \in Elections |->
                       IF TrackDeadTarget /\ MovedTo(c, e) /\ role[c][e] = FOLLOWER THEN key[e].mrev
                                                                                ELSE deadMove[e]]
    /\ UNCHANGED <<leaseRem, nextLease, key, rev>>
    /\ UNCHANGED <<token, pend>> /\ UNCHANGED <<MsgVars, maxTok, tokOk, won>>

-----------------------------------------------------------------------------
(******************************* The elections ******************************)

(* c starts a term of e with token t. *)
BecomeMaster(c, e, t) ==
    /\ role' = [role EXCEPT ![c][e] = MASTER]
    /\ token' = [token EXCEPT ![c][e] = t]
    /\ tokOk' = (tokOk /\ t > maxTok[e])
    /\ maxTok' = [maxTok EXCEPT ![e] = Max(maxTok[e], t)]
    /\ won' = IF TrackReWin THEN won \cup {<<c, e, sessLease[c], t>>} ELSE won
    /\ UNCHANGED deadMove

(* c sends a fenced delete of K(e) at mod revision k.mrev (k on lease k.lease). *)
SendDelete(c, e, k) == dreq' = dreq \cup {[c |-> c, e |-> e, r |-> k.mrev, l |-> k.lease]}

(* The watch shows K(e) absent: c sends                                     *)
(* Txn(If CreateRevision(K(e)) == 0 Then Put(K(e), c, lease) Else Get(K(e))). *)
Campaign(c, e) ==
    /\ Live(c) /\ role[c][e] = FOLLOWER /\ key[e].mrev = 0 /\ ~pend[c][e]
    /\ ~\E m \in creq \cup crep : m.c = c /\ m.e = e     \* bound: see CALLS
    /\ creq' = creq \cup {[c |-> c, e |-> e, l |-> sessLease[c], cur |-> TRUE]}
    /\ pend' = [pend EXCEPT ![c][e] = TRUE]
    /\ UNCHANGED <<LeaseVars, key, rev, role, token, crep, dreq, treq, moves, HistVars>>

(* etcd applies a campaign request.  The Put fails if the lease is gone.    *)
ApplyCampaign(m) ==
    LET e == m.e
        Reply(ok, kv) == crep' = crep \cup {[c |-> m.c, e |-> e, l |-> m.l, cur |-> m.cur,
                                            ok |-> ok, kv |-> kv]}
    IN /\ creq' = creq \ {m}
       /\ \/ /\ key[e].mrev = 0 /\ leaseRem[m.l] > 0 /\ rev < MaxRev
             /\ rev' = rev + 1
             /\ key' = [key EXCEPT ![e] = [crev |-> rev + 1, mrev |-> rev + 1, lease |-> m.l,
                                           holder |-> m.c]]
             /\ Reply(TRUE, key'[e])
          \/ /\ key[e].mrev # 0 /\ Reply(FALSE, key[e]) /\ UNCHANGED <<key, rev>>
          \/ /\ key[e].mrev = 0 /\ leaseRem[m.l] = 0 /\ Reply(FALSE, NoKey)
             /\ UNCHANGED <<key, rev>>
       /\ UNCHANGED <<LeaseVars, ElecVars, dreq, treq, moves, HistVars>>

(* c receives a campaign reply.  Only a success for the call it still waits *)
(* for, on the same session before its deadline, starts a term; any other   *)
(* success is cleaned up by a fenced delete.  A lost campaign whose Get      *)
(* shows K(e) on c's own lease (an earlier, abandoned call of c won) is an   *)
(* orphan: c deletes it (adopts it under MUT_ADOPT_OWN_KEY).  A key moved to *)
(* c is no orphan: c adopts it once no campaign of its own is outstanding.   *)
RecvCampaign(m) ==
    LET c == m.c
        e == m.e
        valid == m.cur /\ m.l = sessLease[c] /\ Live(c)
        orphan == /\ m.cur /\ ~m.ok /\ m.kv.mrev # 0 /\ m.kv.lease = sessLease[c]
                  /\ ~(Moved(m.kv) /\ m.kv.holder = c /\ m.kv.mrev > token[c][e])
    IN /\ up[c]
       /\ crep' = crep \ {m}
       /\ pend' = IF m.cur THEN [pend EXCEPT ![c][e] = FALSE] ELSE pend
       /\ IF m.ok /\ (valid \/ MUT_LEAD_ON_LATE_WIN)
            THEN BecomeMaster(c, e, m.kv.mrev) /\ UNCHANGED dreq
          ELSE IF orphan /\ MUT_ADOPT_OWN_KEY /\ Live(c)
            THEN BecomeMaster(c, e, m.kv.mrev) /\ UNCHANGED dreq
          ELSE IF m.ok \/ orphan
            THEN SendDelete(c, e, m.kv) /\ UNCHANGED <<role, token, HistVars>>
          ELSE UNCHANGED <<role, token, dreq, HistVars>>
       /\ UNCHANGED <<LeaseVars, key, rev, creq, treq, moves>>

(* The call's timeout: c stops waiting; a late reply will be ignored.        *)
GiveUp(c, e) ==
    /\ pend[c][e]
    /\ pend' = [pend EXCEPT ![c][e] = FALSE]
    /\ creq' = {IF m.c = c /\ m.e = e THEN [m EXCEPT !.cur = FALSE] ELSE m : m \in creq}
    /\ crep' = {IF m.c = c /\ m.e = e THEN [m EXCEPT !.cur = FALSE] ELSE m : m \in crep}
    /\ UNCHANGED <<LeaseVars, key, rev, role, token, dreq, treq, moves, HistVars>>

(* A FOLLOWER's watch shows K(e) on its own lease while no campaign of its  *)
(* own for e is outstanding, and K(e) was not moved to it: an orphan.  c    *)
(* deletes it, fenced on its mod revision (adopts it under                  *)
(* MUT_ADOPT_OWN_KEY).  (A leader that has just moved K(e) away and still    *)
(* sees it may delete it too: its move is then refused, a move that never   *)
(* lands; the code waits for the move's answer first.)                      *)
SeeOwnKey(c, e) ==
    /\ up[c] /\ role[c][e] = FOLLOWER /\ ~pend[c][e]
    /\ sessLease[c] # 0 /\ key[e].lease = sessLease[c] /\ ~MovedTo(c, e)
    /\ IF MUT_ADOPT_OWN_KEY /\ Live(c)
         THEN BecomeMaster(c, e, key[e].mrev) /\ UNCHANGED dreq
         ELSE SendDelete(c, e, key[e]) /\ UNCHANGED <<role, token, HistVars>>
    /\ UNCHANGED <<LeaseVars, key, rev, pend, creq, crep, treq, moves>>

(* Adoption (issue 28): a FOLLOWER of e sees K(e) moved to it (MovedTo), has *)
(* no campaign of its own for e outstanding, and its session is before its  *)
(* deadline: it leads e with token := K(e)'s mod revision.  A moved key it  *)
(* cannot adopt in time goes with its session's lease.                      *)
Adopt(c, e) ==
    /\ Live(c) /\ role[c][e] = FOLLOWER /\ ~pend[c][e] /\ MovedTo(c, e)
    /\ BecomeMaster(c, e, key[e].mrev)
    /\ UNCHANGED <<LeaseVars, key, rev, pend, MsgVars>>

(* A move (see PLACEMENT MOVES): c, MASTER of e, hands K(e) to d's session  *)
(* lease in one transaction,                                                *)
(*   Txn(If ModRevision(K(e)) == token /\ CreateRevision(P(e, d)) == seen,  *)
(*       Then Put(K(e), d, lease = sessLease[d]), Else Get(K(e))),           *)
(* stepping down first.  The target must be a live participant as c sees it *)
(* (a session lease); otherwise transferTo fails and c keeps its term (no   *)
(* step).  The Txn is applied later, or never (Lose); c ignores its answer: *)
(* committed, K(e) is d's; refused, K(e) is still on c's lease and goes as  *)
(* an orphan (SeeOwnKey).                                                   *)
(* MUT_TRANSFER_UNFENCED: no ModRevision compare.                           *)
(* MUT_RELEASE_FIRST: the move releases K(e) first, by the resign's fenced  *)
(* delete, and then puts K(e) for d; with c's key gone there is no token    *)
(* left to compare, so the put is unconditional.                            *)
Transfer(c, e, d) ==
    /\ up[c] /\ role[c][e] = MASTER /\ d # c /\ sessLease[d] # 0 /\ moves < MaxMoves
    /\ role' = [role EXCEPT ![c][e] = FOLLOWER]
    /\ treq' = treq \cup {[c |-> c, e |-> e, tok |-> token[c][e], to |-> sessLease[d], d |-> d,
                           fenced |-> ~MUT_TRANSFER_UNFENCED /\ ~MUT_RELEASE_FIRST]}
    /\ moves' = moves + 1
    /\ IF MUT_RELEASE_FIRST THEN SendDelete(c, e, [mrev |-> token[c][e], lease |-> sessLease[c]])
                            ELSE UNCHANGED dreq
    /\ UNCHANGED <<LeaseVars, key, rev, token, pend, creq, crep, HistVars>>

(* etcd applies a move.  It commits if K(e) is still at the mover's token   *)
(* (when fenced) and d's participant key, which lives exactly as long as    *)
(* d's lease, is still there: K(e) keeps its create revision (a put on an  *)
(* absent K(e) creates it), gets a new mod revision, d's lease and d's id.  *)
(* A target that is down by then still has its lease until it expires: the *)
(* key goes with it, at most TTL later (TrackDeadTarget records it).        *)
ApplyTransfer(m) ==
    LET e == m.e
        commit == /\ ~m.fenced \/ (key[e].mrev # 0 /\ key[e].mrev = m.tok)
                  /\ leaseRem[m.to] > 0
    IN /\ commit => rev < MaxRev
       /\ treq' = treq \ {m}
       /\ IF commit
            THEN /\ rev' = rev + 1
                 /\ key' = [key EXCEPT ![e] = [crev |-> IF key[e].mrev = 0 THEN rev + 1 ELSE key[e].crev,
                                               mrev |-> rev + 1, lease |-> m.to, holder |-> m.d]]
                 /\ deadMove' = IF TrackDeadTarget /\ ~up[m.d] THEN [deadMove EXCEPT ![e] = rev + 1]
                                                               ELSE deadMove
            ELSE UNCHANGED <<key, rev, deadMove>>
       /\ UNCHANGED <<LeaseVars, ElecVars, creq, crep, dreq, moves, maxTok, tokOk, won>>

(* Resign: role FOLLOWER first, then the fenced delete (retried).  The     *)
(* lease and c's other elections are untouched.  The hold-off that follows  *)
(* is not a variable: see HOLD-OFF above.                                    *)
Resign(c, e) ==
    /\ up[c] /\ role[c][e] = MASTER
    /\ role' = [role EXCEPT ![c][e] = FOLLOWER]
    /\ SendDelete(c, e, [mrev |-> token[c][e], lease |-> sessLease[c]])
    /\ UNCHANGED <<LeaseVars, key, rev, token, pend, creq, crep, treq, moves, HistVars>>

(* etcd applies a copy of a fenced delete; another copy may stay in flight. *)
ApplyDelete(m) ==
    /\ IF (IF MUT_DELETE_BY_LEASE THEN key[m.e].lease = m.l ELSE key[m.e].mrev = m.r)
         THEN key' = [key EXCEPT ![m.e] = NoKey]
         ELSE UNCHANGED key
    /\ \E keep \in BOOLEAN : dreq' = IF keep THEN dreq ELSE dreq \ {m}
    /\ UNCHANGED <<LeaseVars, rev, ElecVars, creq, crep, treq, moves, HistVars>>

(* A MASTER's watch shows K(e) absent or at another mod revision: step down. *)
KeyGone(c, e) ==
    /\ up[c] /\ role[c][e] = MASTER /\ key[e].mrev # token[c][e]
    /\ role' = [role EXCEPT ![c][e] = FOLLOWER]
    /\ UNCHANGED <<LeaseVars, key, rev, token, pend, MsgVars, HistVars>>

Lose ==
    /\ \/ \E m \in creq : creq' = creq \ {m} /\ UNCHANGED <<crep, dreq, treq>>
       \/ \E m \in crep : crep' = crep \ {m} /\ UNCHANGED <<creq, dreq, treq>>
       \/ \E m \in dreq : dreq' = dreq \ {m} /\ UNCHANGED <<creq, crep, treq>>
       \/ \E m \in treq : treq' = treq \ {m} /\ UNCHANGED <<creq, crep, dreq>>
    /\ UNCHANGED <<LeaseVars, key, rev, ElecVars, moves, HistVars>>

Next ==
    \/ Tick \/ Lose
    \/ \E c \in Cands : Grant(c) \/ Renew(c) \/ SessionLost(c) \/ Crash(c)
    \/ \E l \in LeaseIds : Revoke(l)
    \/ \E c \in Cands, e \in Elections :
          \/ Campaign(c, e) \/ GiveUp(c, e) \/ SeeOwnKey(c, e) \/ Resign(c, e)
          \/ KeyGone(c, e) \/ Adopt(c, e)
          \/ \E d \in Cands : Transfer(c, e, d)
    \/ \E m \in creq : ApplyCampaign(m)
    \/ \E m \in crep : RecvCampaign(m)
    \/ \E m \in dreq : ApplyDelete(m)
    \/ \E m \in treq : ApplyTransfer(m)

Spec == Init /\ [][Next]_vars

(* The VIEW: TLC treats states with the same view as one.  It leaves out    *)
(* data that no action and no invariant can read any more, so merging on it  *)
(* is exact.  Mod revisions of K(e) only grow, lease ids are never reused.   *)
(*  - a lease no session holds, no key is bound to and no campaign request   *)
(*    carries: it can only expire.                                           *)
(*  - the token of a client that is not MASTER, unless K(e) is still at that *)
(*    token and moves are on: it is read by a MASTER, and by MovedTo, whose  *)
(*    compare K(e).mrev > token holds for every other K(e) (K(e) is never    *)
(*    older than a token taken from it).                                     *)
(*  - a fenced delete of a mod revision K(e) no longer has: it can never     *)
(*    match again (except under MUT_DELETE_BY_LEASE, which compares leases). *)
(*  - a campaign request its client gave up on, whose lease is gone: it can  *)
(*    only fail; a reply its client gave up on that is not a success, or    *)
(*    whose key is gone (its cleanup delete would be dead), or whose client  *)
(*    crashed (except under MUT_LEAD_ON_LATE_WIN).                           *)
(*  - a fenced move whose K(e) is no longer at its token, or whose target's  *)
(*    lease is gone: it can only be refused.                                 *)
Observable(l) == \/ \E c \in Cands : sessLease[c] = l
                 \/ \E e \in Elections : key[e].lease = l
                 \/ \E m \in creq : m.l = l
                 \/ \E m \in treq : m.to = l
LiveDel(m) == MUT_DELETE_BY_LEASE \/ key[m.e].mrev = m.r
LiveReq(m) == m.cur \/ leaseRem[m.l] > 0
LiveRep(m) == up[m.c] /\ (m.cur \/ (m.ok /\ (MUT_LEAD_ON_LATE_WIN \/ key[m.e].mrev = m.kv.mrev)))
LiveMove(m) == leaseRem[m.to] > 0 /\ (~m.fenced \/ key[m.e].mrev = m.tok)
LiveTok(c, e) == role[c][e] = MASTER \/ (MaxMoves > 0 /\ key[e].mrev = token[c][e])
View == <<up, sessLease, dl, [l \in LeaseIds |-> IF Observable(l) THEN leaseRem[l] ELSE 0],
          nextLease, key, rev, role,
          [c \in Cands |-> [e \in Elections |-> IF LiveTok(c, e) THEN token[c][e] ELSE 0]],
          pend, {m \in creq : LiveReq(m)}, {m \in crep : LiveRep(m)}, {m \in dreq : LiveDel(m)},
          {m \in treq : LiveMove(m)}, moves, maxTok, tokOk, won, deadMove>>

-----------------------------------------------------------------------------
(******************************** Invariants ********************************)

Leads(c, e) == role[c][e] = MASTER /\ dl[c] > 0

(* The abstraction of the session's lease (Leasehold.tla proves the rule). *)
DeadlineBeforeExpiry ==
    \A c \in Cands : dl[c] > 0 => sessLease[c] # 0 /\ dl[c] < leaseRem[sessLease[c]]

NoOverlap == \A e \in Elections : Cardinality({c \in Cands : Leads(c, e)}) <= 1

(* The key lemma: a leading client's term is K(e) as it is at etcd. *)
HolderOwnsKey ==
    \A c \in Cands, e \in Elections :
        Leads(c, e) => key[e].mrev = token[c][e] /\ key[e].lease = sessLease[c]
                       /\ key[e].holder = c

TokensIncrease == tokOk

(* Non-vacuity targets, which must be violated. *)
SanityNoReWin == \A c \in Cands, e \in Elections :     \* needs TrackReWin
    Leads(c, e) => Cardinality({t \in won : t[1] = c /\ t[2] = e /\ t[3] = sessLease[c]}) <= 1
SanityNoTwoElections == \A c \in Cands : Cardinality({e \in Elections : Leads(c, e)}) <= 1
(* Sanity_SessionTransfer: a client leads a key that a move gave it.        *)
SanityNoAdoption == \A c \in Cands, e \in Elections : Leads(c, e) => ~Moved(key[e])
(* Sanity_SessionDeadTarget (needs TrackDeadTarget): K(e) is moved to a     *)
(* client that is down, or goes down before adopting it; the key expires    *)
(* with that client's lease, and another term of e begins after it.         *)
SanityNoTermAfterDeadTarget == \A c \in Cands, e \in Elections :
    Leads(c, e) => ~(deadMove[e] # 0 /\ token[c][e] > deadMove[e])
=============================================================================
