----------------------------- MODULE Leasehold -----------------------------
(***************************************************************************)
(* TLA+ model of the Leasehold leader-election protocol on etcd, on its    *)
(* default path: standby leases on, lease probe on a deleted key, resign   *)
(* hold-off, and the handover of PROTOCOL.md 4.5 (the token is K's mod      *)
(* revision; a resigning MASTER hands K to another process's standby lease, *)
(* which adopts it).  The placement moves of issue 28 (transferTo, priority *)
(* preemption, yielding when unhealthy, an operator's transfer) are that    *)
(* handover with the target named (Handover).  README.md maps each action  *)
(* to the code; PROTOCOL.md has the name table.                             *)
(*                                                                         *)
(* Mapping to the code (dev.leasehold.etcd.protocol.ElectionMachine):           *)
(*   role[c] \in {FOLLOWER, CANDIDATE, MASTER, STOPPED} is the machine's   *)
(*   role.  phase[c] is what the process waits for:                        *)
(*     FOLLOWER:  "idle"; "probing" (it was MASTER, saw its key deleted,   *)
(*                and asks whether its lease went too: the code's PROBING  *)
(*                phase); "holdoff" (it resigned and stays out of the      *)
(*                election until the hold-off ends).                       *)
(*     CANDIDATE: "campaign" (the campaign Txn is in flight) ->            *)
(*                "campaignDone" (applied, answer in flight) -> MASTER /   *)
(*                FOLLOWER.                                                *)
(*     MASTER:    "idle" -> "kaReplied" (keep-alive sent at local time s,  *)
(*                etcd's answer (TTL, term) in flight) -> on arrival: the  *)
(*                confirming read, then "idle" again.                      *)
(*     STOPPED:   "idle".                                                  *)
(*   lease[c] is the lease the process holds: a FOLLOWER's standby lease,  *)
(*   the CANDIDATE's or the MASTER's (while "probing": the lease whose     *)
(*   fate the probe asks about).  dlRem[c] counts down to that lease's    *)
(*   local deadline.  token[c] is the fencing token of the current / last  *)
(*   term (K's mod revision when it began); it is kept after stepping down *)
(*   because writes it guarded may still be in flight.  A resigner that    *)
(*   handed K over is a FOLLOWER in phase "holdoff" that keeps its lease;  *)
(*   hand[c] is its handover Txn.                                          *)
(*                                                                         *)
(* TIME.  Time is discrete (one Tick = one unit of real time; every event  *)
(* happens at an integer instant).  All timers are stored as COUNTDOWNS    *)
(* relative to the current instant, so the state space is finite without  *)
(* bounding time; `now' is kept only so that traces are readable and is   *)
(* excluded from the VIEW (no action reads it).                           *)
(*                                                                         *)
(* LOCAL CLOCKS.  A candidate's monotonic clock is used only to measure    *)
(* the interval from a send time s to its local deadline                   *)
(* s + TTL*(1-rho) - Margin.  We do not store clock readings; instead, at  *)
(* the moment a deadline is set we choose nondeterministically the real    *)
(* duration D that a clock whose rate lies in [1-rho, 1+rho] needs to      *)
(* cover that local interval (rounded up to the integer instant at which   *)
(* the deadline is observed), and keep dlRem = D - (time since s).  Each   *)
(* measured interval gets its own rate: an over-approximation of a single *)
(* clock with a bounded rate, hence sound for safety.  "Local clock <      *)
(* deadline" is dlRem > 0.  A paused process's clock is frozen (rate 0,   *)
(* outside the drift bound), so its countdowns do not advance while it is *)
(* paused; total pause time is bounded by MaxPause (see README: we bound  *)
(* pauses by the margin instead of excluding paused masters).             *)
(*                                                                         *)
(* Message timing: grants and keep-alives are applied at their send        *)
(* instant; a grant's answer arrives at once; the read after a MASTER's    *)
(* ack is served when the ack arrives; a standby lease's renewal (keep-    *)
(* alive, ack, read) is one step (the worst cases, see README).  Other     *)
(* answers may be delayed arbitrarily or lost.                             *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, TLC

CONSTANTS
    Cands,            \* candidate processes (model values; symmetric)
    TTL,              \* lease TTL in ticks (server real time)
    ElectionTimeout,  \* extension added by Promote on an etcd leader change
    RhoNum, RhoDen,   \* maxDriftRate rho = RhoNum / RhoDen
    Margin,           \* safety margin, in local-clock ticks
    Lag,              \* step-down may run up to Lag ticks after the deadline
    MaxPause,         \* total ticks candidates may spend paused (whole run)
    MaxLeases,        \* lease grants available (bounds campaigns and standby grants)
    MaxTerm,          \* highest etcd raft term (bounds leader changes)
    AllowAdminDelete, \* operator may delete K with etcdctl (once)
    AllowCrash,       \* candidates may crash (-> STOPPED, lease left to expire)
    StandbyLease,     \* followers keep a standby lease (the code's default: TRUE)
    AllowStrayCampaign, \* a copy of a campaign Txn may be applied after its client moved on
    TrackStandbyRenewal, \* keep the history standbyRenewed (only for Sanity_StandbyTakeover)
    MaxHandovers,     \* handovers a MASTER may send (whole run; 0: resign always releases)
    TrackDeadTarget,  \* keep the history deadMove (only for Sanity_TransferDeadTarget)
    \* ---- mutations (all FALSE for the real protocol) ----
    MUT_RECEIVE_TIME,      \* (a) renewal deadline measured from the ack's receive time
    MUT_ACK_ONLY,          \* (c) MASTER's renewal confirmed by the keep-alive ack alone
    MUT_NO_TERM_CHECK,     \* (c') read done, but its raft term not compared with the ack's
    MUT_SAME_ID,           \* (d) all candidates configured with the same candidate id
    MUT_OWNER_BY_VALUE,    \* (d) master checks ownership by key value == id (read/watch)
    MUT_RESUME_BY_VALUE,   \* (d) losing campaign whose Get shows value == id => "already master"
    MUT_NO_DRIFT_FACTOR,   \* (e) deadline = s + TTL - Margin (no (1-rho) factor)
    MUT_FENCE_BY_VALUE,    \* (f) guarded write compares Value(K) == id, not CreateRevision
    MUT_NO_LATE_WIN_CHECK, \* (g) a campaign won after its deadline passed still => MASTER
    MUT_STANDBY_UNCONFIRMED, \* (h) a standby lease's deadline earned by a keep-alive ack alone
    MUT_HANDOVER_UNFENCED, \* (i) the handover Txn lacks its ModRevision(K) == token compare
    MUT_ADOPT_UNCONFIRMED, \* (j) a follower adopts K on its standby lease whatever its deadline
    MUT_TOKEN_IS_CREATE_REV \* (k) token = K's create revision (compares too), not its mod revision

ASSUME /\ TTL \in Nat \ {0} /\ ElectionTimeout \in Nat
       /\ RhoNum \in Nat /\ RhoDen \in Nat \ {0} /\ RhoNum < RhoDen
       /\ Margin \in Nat /\ Lag \in Nat /\ MaxPause \in Nat
       /\ MaxLeases \in Nat \ {0} /\ MaxTerm \in Nat \ {0}
       /\ StandbyLease \in BOOLEAN /\ AllowStrayCampaign \in BOOLEAN
       /\ TrackStandbyRenewal \in BOOLEAN /\ MaxHandovers \in Nat /\ TrackDeadTarget \in BOOLEAN

FOLLOWER == "FOLLOWER"
CANDIDATE == "CANDIDATE"
MASTER == "MASTER"
STOPPED == "STOPPED"
Roles == {FOLLOWER, CANDIDATE, MASTER, STOPPED}
Phases == {"idle", "campaign", "campaignDone", "kaReplied", "probing", "holdoff"}

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b
CeilDiv(a, b) == IF a <= 0 THEN 0 ELSE (a + b - 1) \div b

(* Local length of a deadline interval, times RhoDen (integer arithmetic). *)
LocalSpanTimesDen ==
    IF MUT_NO_DRIFT_FACTOR THEN (TTL - Margin) * RhoDen
                           ELSE TTL * (RhoDen - RhoNum) - Margin * RhoDen
(* Real time a clock with rate in [1-rho, 1+rho] needs for it, rounded up   *)
(* to the first integer instant at which the deadline is observed.          *)
DMin == CeilDiv(LocalSpanTimesDen, RhoDen + RhoNum)
DMax == CeilDiv(LocalSpanTimesDen, RhoDen - RhoNum)
DRange == DMin..DMax

(* A follower campaigns at once with its standby lease only if the lease's  *)
(* local deadline is at least one standby renewal interval (TTL/3, local)   *)
(* away (code: campaignOrWait).  A clock with rate <= 1+rho then has at     *)
(* least TTL/(3(1+rho)) real time left, so dlRem >= StandbyCampaignMin.    *)
(* Otherwise it gives the lease back and grants a fresh one; the model      *)
(* allows that at any dlRem (a superset of the code's choices).             *)
StandbyCampaignMin == Max(1, CeilDiv(TTL * RhoDen, 3 * (RhoDen + RhoNum)))

LeaseIds == 1..MaxLeases
(* Revisions count writes of K only (other writes do not change their       *)
(* order).  Each incarnation of K ends with the lease it is bound to at the  *)
(* time (a lease is deleted once), except the one an operator deletes: at    *)
(* most MaxLeases + 1 creations; every other write of K is a handover.       *)
MaxRev == MaxLeases + 1 + MaxHandovers
NoVal == "none"
Id(c) == IF MUT_SAME_ID THEN "shared" ELSE c
Vals == {Id(c) : c \in Cands} \cup {NoVal}
(* K: create revision, mod revision, lease, value.  A campaign sets both     *)
(* revisions, a handover only the mod revision.                              *)
NoKey == [crev |-> 0, mrev |-> 0, lease |-> 0, val |-> NoVal]
Keys == [crev : 0..MaxRev, mrev : 0..MaxRev, lease : 0..MaxLeases, val : Vals]
NoResp == [ok |-> FALSE, term |-> 0, key |-> NoKey]
NoStray == [lease |-> 0, val |-> NoVal]
(* A handover Txn of a resigned MASTER: "sent" (in the network, its client  *)
(* waits), "ok" / "refused" (applied, the answer in flight), "stray" (in the *)
(* network, its client gave up on it or is gone).  tok: the token it        *)
(* compares; from: the resigner's lease; to / val: the successor's lease and *)
(* id.                                                                       *)
NoHand == [st |-> "none", tok |-> 0, from |-> 0, to |-> 0, val |-> NoVal]
Hands == [st : {"sent", "ok", "refused", "stray"}, tok : 0..MaxRev,
          from : LeaseIds, to : LeaseIds, val : Vals] \cup {NoHand}
(* The fencing token K gives its holder: the mod revision (PROTOCOL.md 4.5). *)
Tok(k) == IF MUT_TOKEN_IS_CREATE_REV THEN k.crev ELSE k.mrev

VARIABLES
    now,          \* real time (history only, not in the VIEW)
    term,         \* raft term of the real etcd leader
    isoTerm,      \* term of an isolated, deposed leader still acking keep-alives (0: none)
    leaseRem,     \* lease -> ticks until expiry; 0 = expired but not yet swept; -1 = no such lease
    nextLease,    \* next lease id etcd will grant
    revoking,     \* leases with a revoke request in flight (code: Command.Release)
    key,          \* the election key K (NoKey when absent)
    rev,          \* revision counter: the revision of the latest write of K (its mod revision)
    stray,        \* a copy of some campaign Txn still in the network (NoStray: none)
    role, phase, lease, token,
    dlRem,        \* holder of a lease: ticks until its local clock reaches the lease's deadline
    lagUsed,      \* MASTER: ticks spent past the deadline without having stepped down
    sAge,         \* MASTER: ticks (of its clock running) since the pending keep-alive's send time s
    resp,         \* response in flight / received for the pending request
    paused,       \* process paused: clock and actions stopped
    standbyRenewed, \* history (only if TrackStandbyRenewal): lease renewed and confirmed as a standby
    pauseLeft,    \* remaining pause budget
    adminDeleted, \* history: K was deleted by an operator
    maxToken,     \* history: highest token ever given to a MASTER
    orderOk,      \* history: every new MASTER's token exceeded all earlier ones
    staleWriteOk, \* history: no guarded write with a stale token succeeded
    startRev,     \* c -> K's mod revision when c's current / last term began (= token[c]
                  \*      except under MUT_TOKEN_IS_CREATE_REV): the term's identity
    hand,         \* c -> its handover Txn (NoHand: none)
    handovers,    \* scope: handovers sent so far
    deadMove      \* history (only if TrackDeadTarget): K's mod revision when it was handed to
                  \*      a process that was down, or went down before adopting it (0: none)

cvars == <<role, phase, lease, token, dlRem, lagUsed, sAge, resp, paused, standbyRenewed>>
evars == <<now, term, isoTerm, leaseRem, nextLease, revoking, key, rev, stray>>
hvars == <<startRev, hand, handovers, deadMove>>
vars == <<evars, cvars, pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk, hvars>>
Symm == Permutations(Cands)

SAgeCap == Max(DMax, 1)   \* beyond DMax the age no longer changes any deadline
Pending(c) == phase[c] = "kaReplied"
Exists(l) == l # 0 /\ leaseRem[l] >= 0
Alive(l) == l # 0 /\ leaseRem[l] > 0
KeyAbsent == key.crev = 0
Masters == {c \in Cands : role[c] = MASTER}
Active(c) == role[c] # STOPPED /\ ~paused[c]

(* The VIEW: TLC treats states with the same view as one.  It leaves out   *)
(* `now' and two kinds of data that no action and no invariant can read any *)
(* more, so merging on them is exact:                                       *)
(*  - a lease that no process holds, that K is not bound to and that no      *)
(*    stray campaign carries ("orphaned": given back, or left by a crash).  *)
(*    Lease ids are never reused, so it stays orphaned; its expiry and a    *)
(*    pending release of it can only delete it.                            *)
(*  - the token of a process that is not MASTER when K is not the token's    *)
(*    incarnation: create revisions only grow, so a guarded write with it   *)
(*    can never succeed again (except under MUT_FENCE_BY_VALUE).            *)
Observable(l) == \/ \E c \in Cands : lease[c] = l
                 \/ key.lease = l
                 \/ stray.lease = l
                 \/ \E c \in Cands : hand[c].st \in {"sent", "stray"} /\ hand[c].to = l
(* A token that no compare can match any more: K's token revisions only     *)
(* grow.  startRev is read only by Adopt (K's mod revision above it, which  *)
(* holds for every K present when the token is not live) and GuardedWrite.  *)
LiveToken(c) == role[c] = MASTER \/ (key.crev # 0 /\ Tok(key) = token[c]) \/ MUT_FENCE_BY_VALUE
View == <<term, isoTerm,
          [l \in LeaseIds |-> IF Observable(l) THEN leaseRem[l] ELSE -1],
          nextLease, {l \in revoking : Observable(l)}, key, rev, stray,
          role, phase, lease, [c \in Cands |-> IF LiveToken(c) THEN token[c] ELSE 0],
          dlRem, lagUsed, sAge, resp, paused, standbyRenewed,
          pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk,
          [c \in Cands |-> IF LiveToken(c) THEN startRev[c] ELSE 0], hand, handovers, deadMove>>

(* Does K (as seen by a read) belong to c?  Real protocol: lease id + mod revision. *)
OwnsByIncarnation(c, k) == k.crev # 0 /\ Tok(k) = token[c] /\ k.lease = lease[c]
Owns(c, k) == IF MUT_OWNER_BY_VALUE THEN k.crev # 0 /\ k.val = Id(c)
                                    ELSE OwnsByIncarnation(c, k)

TypeOK ==
    /\ now \in Nat
    /\ term \in 1..MaxTerm /\ isoTerm \in 0..MaxTerm /\ isoTerm < term
    /\ leaseRem \in [LeaseIds -> -1..(TTL + ElectionTimeout)]
    /\ nextLease \in 1..(MaxLeases + 1)
    /\ revoking \subseteq LeaseIds
    /\ key \in Keys /\ rev \in 0..MaxRev
    /\ stray \in {NoStray} \cup [lease : LeaseIds, val : Vals]
    /\ role \in [Cands -> Roles] /\ phase \in [Cands -> Phases]
    /\ lease \in [Cands -> 0..MaxLeases] /\ token \in [Cands -> 0..MaxRev]
    /\ dlRem \in [Cands -> 0..DMax] /\ lagUsed \in [Cands -> 0..Lag]
    /\ sAge \in [Cands -> 0..SAgeCap]
    /\ resp \in [Cands -> [ok : BOOLEAN, term : 0..MaxTerm, key : Keys]]
    /\ paused \in [Cands -> BOOLEAN] /\ standbyRenewed \in [Cands -> BOOLEAN]
    /\ pauseLeft \in 0..MaxPause
    /\ adminDeleted \in BOOLEAN /\ maxToken \in 0..MaxRev
    /\ orderOk \in BOOLEAN /\ staleWriteOk \in BOOLEAN
    /\ startRev \in [Cands -> 0..MaxRev] /\ hand \in [Cands -> Hands]
    /\ handovers \in 0..MaxHandovers /\ deadMove \in 0..MaxRev

Init ==
    /\ now = 0 /\ term = 1 /\ isoTerm = 0
    /\ leaseRem = [l \in LeaseIds |-> -1] /\ nextLease = 1 /\ revoking = {}
    /\ key = NoKey /\ rev = 0 /\ stray = NoStray
    /\ role = [c \in Cands |-> FOLLOWER] /\ phase = [c \in Cands |-> "idle"]
    /\ lease = [c \in Cands |-> 0] /\ token = [c \in Cands |-> 0]
    /\ dlRem = [c \in Cands |-> 0] /\ lagUsed = [c \in Cands |-> 0]
    /\ sAge = [c \in Cands |-> 0] /\ resp = [c \in Cands |-> NoResp]
    /\ paused = [c \in Cands |-> FALSE] /\ standbyRenewed = [c \in Cands |-> FALSE]
    /\ pauseLeft = MaxPause
    /\ adminDeleted = FALSE /\ maxToken = 0 /\ orderOk = TRUE /\ staleWriteOk = TRUE
    /\ startRev = [c \in Cands |-> 0] /\ hand = [c \in Cands |-> NoHand] /\ handovers = 0
    /\ deadMove = 0

(* c moves to role r and phase ph and forgets its lease and pending request *)
(* (code: forgetLease; the caller revokes the lease if needed).  token[c]   *)
(* is kept: writes it issued may still be in flight (fencing).              *)
LeaveTo(c, r, ph) ==
    /\ role' = [role EXCEPT ![c] = r]
    /\ phase' = [phase EXCEPT ![c] = ph]
    /\ lease' = [lease EXCEPT ![c] = 0]
    /\ dlRem' = [dlRem EXCEPT ![c] = 0]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]
    /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
Leave(c, r) == LeaveTo(c, r, "idle")

(* The lease of c is given back (code: Command.Release; etcd: LeaseRevoke). *)
Release(l) == revoking' = IF l # 0 THEN revoking \cup {l} ELSE revoking

(* Etcd grants lease nextLease, applied at the send instant (expiry =       *)
(* serverNow + TTL).  Its answer arrives at once and c holds the lease with *)
(* the deadline s + TTL*(1-rho) - Margin, s = the grant's send time.        *)
(* Applying the grant later only makes the lease expire later, and a later  *)
(* answer only leaves less of the deadline: this is the worst case.         *)
Grant(c) ==
    /\ nextLease <= MaxLeases
    /\ leaseRem' = [leaseRem EXCEPT ![nextLease] = TTL]
    /\ lease' = [lease EXCEPT ![c] = nextLease]
    /\ nextLease' = nextLease + 1
    /\ \E d \in DRange : dlRem' = [dlRem EXCEPT ![c] = d]

EtcdUnchanged == UNCHANGED evars
EtcdUnchangedButRevoking == UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>>
HistUnchanged == UNCHANGED <<pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk>>
HandUnchanged == UNCHANGED hvars

-----------------------------------------------------------------------------
(************************ Follower and candidate actions ********************)

(* FOLLOWER, no hold-off: it becomes CANDIDATE, grants a fresh lease and    *)
(* sends the campaign.  Two cases:                                          *)
(*  - read first: the watch / periodic linearizable Get shows K absent; a   *)
(*    standby lease too close to its deadline to campaign with is given     *)
(*    back.  Code: campaignOrWait, onLeaseGranted.                          *)
(*  - the cold campaign: with standby leases on, a follower holding no      *)
(*    lease sends it without reading K, whether K is held or not.  The code *)
(*    does so only once, at start (Follower on Start ->                     *)
(*    ElectionMachine.coldCampaign -> Candidate.beginCold; also only when   *)
(*    healthy); the model lets a lease-less follower do it at any step, a   *)
(*    superset.  If K is held, ApplyCampaign's Else branch answers "lost"   *)
(*    and RecvCampaign keeps the lease as a standby lease; the code's Else  *)
(*    branch also enlists it (puts its participant key on the lease:        *)
(*    EtcdCommand.Campaign.enlist), which needs nothing more here: any      *)
(*    live lease of a follower may be a handover's successor (Handover).    *)
(* The compare CreateRevision(K) == 0 decides either way.                   *)
(* ColdCampaign: whether a follower holding no lease may campaign without   *)
(* reading K.  TRUE, as the code does; a configuration may substitute       *)
(* NoColdCampaign (CONSTANT ColdCampaign <- NoColdCampaign) where its       *)
(* mutation needs no cold campaign and the blind campaigns of a third lease *)
(* would only cost time (MC_StandbyUnconfirmed, MC_HandoverUnfenced).       *)
ColdCampaign == TRUE
NoColdCampaign == FALSE

Campaign(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] = "idle" /\ ~paused[c]
    /\ (KeyAbsent \/ (ColdCampaign /\ StandbyLease /\ lease[c] = 0))
    /\ Grant(c)
    /\ Release(lease[c])
    /\ role' = [role EXCEPT ![c] = CANDIDATE]
    /\ phase' = [phase EXCEPT ![c] = "campaign"]
    /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<now, term, isoTerm, key, rev, stray>>
    /\ UNCHANGED <<token, lagUsed, sAge, resp, paused>> /\ HistUnchanged /\ HandUnchanged

(* FOLLOWER with a standby lease whose deadline is at least one renewal     *)
(* interval away: K absent, so it sends the campaign with that lease at     *)
(* once.  Code: campaignOrWait.                                             *)
StandbyCampaign(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] = "idle" /\ ~paused[c] /\ KeyAbsent
    /\ lease[c] # 0 /\ dlRem[c] >= StandbyCampaignMin
    /\ role' = [role EXCEPT ![c] = CANDIDATE]
    /\ phase' = [phase EXCEPT ![c] = "campaign"]
    /\ EtcdUnchanged
    /\ UNCHANGED <<lease, token, dlRem, lagUsed, sAge, resp, paused, standbyRenewed>>
    /\ HistUnchanged /\ HandUnchanged

(* etcd applies the campaign: Txn(If CreateRevision(K)==0, Then Put(K, id,   *)
(* lease), Else Get(K)).  A Put with a lease that no longer exists fails:    *)
(* the client then sees an error (CampaignFailed).  An expired lease that is  *)
(* not yet swept still exists.  A copy of the request (a client-library      *)
(* retry) may stay in the network and be applied later (ApplyStrayCampaign). *)
ApplyCampaign(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "campaign"
    /\ IF KeyAbsent
         THEN /\ Exists(lease[c])
              /\ key' = [crev |-> rev + 1, mrev |-> rev + 1, lease |-> lease[c], val |-> Id(c)]
              /\ rev' = rev + 1
              /\ resp' = [resp EXCEPT ![c] = [ok |-> TRUE, term |-> 0, key |-> key']]
         ELSE /\ resp' = [resp EXCEPT ![c] = [ok |-> FALSE, term |-> 0, key |-> key]]
              /\ UNCHANGED <<key, rev>>
    /\ \/ UNCHANGED stray
       \/ /\ AllowStrayCampaign /\ stray = NoStray /\ ~KeyAbsent
          /\ stray' = [lease |-> lease[c], val |-> Id(c)]
    /\ phase' = [phase EXCEPT ![c] = "campaignDone"]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking>>
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, sAge, paused, standbyRenewed>>
    /\ HistUnchanged /\ HandUnchanged

(* The campaign's answer arrives (code: CampaignWon / CampaignLost).         *)
(* Won -> MASTER with token = K's mod revision (a campaign creates K, so it  *)
(* is the create revision too), keeping the lease's deadline,               *)
(* but only while that deadline has not passed (README, finding 1): a late   *)
(* win gives the lease back.  Lost, but the Else-Get shows K bound to this   *)
(* very lease: an earlier copy of the campaign was applied, so it is won.    *)
(* Lost otherwise -> FOLLOWER, keeping the lease as a standby lease if that  *)
(* is on and its deadline has not passed, else giving it back.               *)
RecvCampaign(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "campaignDone" /\ ~paused[c]
    /\ LET r == resp[c]
           mine == ~r.ok /\ r.key.crev # 0 /\ r.key.lease = lease[c]
           claim == r.ok \/ mine \/ (MUT_RESUME_BY_VALUE /\ r.key.crev # 0 /\ r.key.val = Id(c))
       IN IF claim /\ (dlRem[c] > 0 \/ MUT_NO_LATE_WIN_CHECK)
            THEN /\ role' = [role EXCEPT ![c] = MASTER]
                 /\ phase' = [phase EXCEPT ![c] = "idle"]
                 /\ token' = [token EXCEPT ![c] = Tok(r.key)]
                 /\ startRev' = [startRev EXCEPT ![c] = r.key.mrev]
                 /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
                 /\ sAge' = [sAge EXCEPT ![c] = 0]
                 /\ resp' = [resp EXCEPT ![c] = NoResp]
                 /\ orderOk' = (orderOk /\ Tok(r.key) > maxToken)
                 /\ maxToken' = Max(maxToken, Tok(r.key))
                 /\ UNCHANGED <<lease, dlRem, paused, revoking, standbyRenewed>>
            ELSE IF ~claim /\ StandbyLease /\ dlRem[c] > 0
            THEN /\ role' = [role EXCEPT ![c] = FOLLOWER]
                 /\ phase' = [phase EXCEPT ![c] = "idle"]
                 /\ resp' = [resp EXCEPT ![c] = NoResp]
                 /\ UNCHANGED <<lease, token, dlRem, lagUsed, sAge, paused, revoking>>
                 /\ UNCHANGED <<standbyRenewed, orderOk, maxToken, startRev>>
            ELSE /\ Leave(c, FOLLOWER)
                 /\ Release(lease[c])
                 /\ UNCHANGED <<token, paused, orderOk, maxToken, startRev>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>>
    /\ UNCHANGED <<pauseLeft, adminDeleted, staleWriteOk, hand, handovers, deadMove>>

(* The campaign fails or times out (code: CampaignFailed); it may have been  *)
(* applied.  The lease is given back, which deletes K if the campaign put   *)
(* it.  A request not yet applied may still be applied later (a stray).      *)
CampaignFailed(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] \in {"campaign", "campaignDone"} /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ Release(lease[c])
    /\ \/ UNCHANGED stray
       \/ /\ AllowStrayCampaign /\ stray = NoStray /\ phase[c] = "campaign"
          /\ stray' = [lease |-> lease[c], val |-> Id(c)]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev>>
    /\ UNCHANGED <<token, paused>> /\ HistUnchanged /\ HandUnchanged

(* FOLLOWER that sees a leader and holds no lease grants a standby lease    *)
(* (not during a probe or a resign hold-off).  Code: maybeAcquireStandby,   *)
(* holdLease.                                                               *)
GrantStandby(c) ==
    /\ StandbyLease /\ role[c] = FOLLOWER /\ phase[c] = "idle" /\ ~paused[c]
    /\ lease[c] = 0 /\ ~KeyAbsent
    /\ Grant(c)
    /\ UNCHANGED <<now, term, isoTerm, revoking, key, rev, stray>>
    /\ UNCHANGED <<role, phase, token, lagUsed, sAge, resp, paused, standbyRenewed>>
    /\ HistUnchanged /\ HandUnchanged

(* A FOLLOWER's standby lease, or a CANDIDATE's lease, is renewed: keep-alive *)
(* sent at s, ack, then the confirming read; CONFIRMED iff the read's raft   *)
(* term equals the ack's (no ownership check: no key of its own; code:       *)
(* onConfirmRead).  One step, at the send instant (README: worst case).      *)
(*  - the real leader applies it: a live lease is renewed to TTL; then the    *)
(*    renewal is confirmed (deadline := s + TTL*(1-rho) - Margin, never       *)
(*    earlier than before), or not (read failed or in a later term);          *)
(*  - a gone lease (TTL <= 0): a FOLLOWER forgets it, a CANDIDATE's deadline  *)
(*    is void, so its campaign cannot make it MASTER (code: leaseGone);       *)
(*  - an isolated, deposed leader acks with its old term: the read shows     *)
(*    another term, so nothing is confirmed (a no-step), except under        *)
(*    MUT_STANDBY_UNCONFIRMED, where the ack alone earns a FOLLOWER's        *)
(*    standby lease its deadline.                                           *)
RenewStandby(c) ==
    /\ role[c] \in {FOLLOWER, CANDIDATE} /\ phase[c] # "probing" /\ ~paused[c]
    /\ lease[c] # 0
    /\ \/ /\ Alive(lease[c])
          /\ leaseRem' = [leaseRem EXCEPT ![lease[c]] = TTL]
          /\ \/ /\ \E d \in DRange : dlRem' = [dlRem EXCEPT ![c] = Max(dlRem[c], d)]
                /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] =
                                        (TrackStandbyRenewal /\ role[c] = FOLLOWER) \/ @]
             \/ UNCHANGED <<dlRem, standbyRenewed>>
          /\ UNCHANGED lease
       \/ /\ ~Alive(lease[c])
          /\ IF role[c] = FOLLOWER
               THEN /\ lease' = [lease EXCEPT ![c] = 0]
                    /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
               ELSE UNCHANGED <<lease, standbyRenewed>>
          /\ dlRem' = [dlRem EXCEPT ![c] = 0]
          /\ UNCHANGED leaseRem
       \/ /\ MUT_STANDBY_UNCONFIRMED /\ role[c] = FOLLOWER /\ isoTerm # 0
          /\ \E d \in DRange : dlRem' = [dlRem EXCEPT ![c] = Max(dlRem[c], d)]
          /\ UNCHANGED <<leaseRem, lease, standbyRenewed>>
    /\ UNCHANGED <<now, term, isoTerm, nextLease, revoking, key, rev, stray>>
    /\ UNCHANGED <<role, phase, token, lagUsed, sAge, resp, paused>> /\ HistUnchanged /\ HandUnchanged

(* A FOLLOWER's standby lease reached its local deadline: it cannot vouch   *)
(* for it any more and gives it back (code: the DEADLINE timer).  Also in   *)
(* the hold-off: a resigner that handed K over keeps its lease as a standby. *)
(* A key still bound to the lease goes with it (a key handed to a follower  *)
(* that could not adopt it in time: PROTOCOL.md 4.5, Adoption).             *)
AbandonStandby(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] \in {"idle", "holdoff"} /\ ~paused[c]
    /\ lease[c] # 0 /\ dlRem[c] = 0
    /\ Release(lease[c])
    /\ lease' = [lease EXCEPT ![c] = 0]
    /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>>
    /\ UNCHANGED <<role, phase, token, dlRem, lagUsed, sAge, resp, paused>> /\ HistUnchanged /\ HandUnchanged

(* Adoption (PROTOCOL.md 4.5): a FOLLOWER sees K bound to its own standby   *)
(* lease, with its own id, at a mod revision above any term it gave up: a   *)
(* handover to it, or a campaign of its that it saw lose or fail and that   *)
(* was applied after all.  It becomes MASTER (the code passes through       *)
(* CANDIDATE in the same step) with token := K's mod revision, keeping the  *)
(* standby lease's deadline, if that deadline has not passed.  The code     *)
(* asks for a MASTER's renewal interval (TTL/6, local) left, or else renews  *)
(* first and adopts once the renewal is confirmed; the model allows any     *)
(* dlRem > 0, a superset (its renewals are RenewStandby; TTL/6 is below one *)
(* tick at the model's TTL).  If the deadline passes first the lease is     *)
(* given back and K with it (AbandonStandby).  Also in the hold-off: a      *)
(* resigner may be handed K back.  Code: the machine's adoption in Follower. *)
(* MUT_ADOPT_UNCONFIRMED: adopts whatever the deadline.                     *)
Adopt(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] \in {"idle", "holdoff"} /\ ~paused[c]
    /\ lease[c] # 0 /\ ~KeyAbsent /\ key.lease = lease[c] /\ key.val = Id(c)
    /\ key.mrev > startRev[c]
    /\ dlRem[c] > 0 \/ MUT_ADOPT_UNCONFIRMED
    /\ role' = [role EXCEPT ![c] = MASTER]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ token' = [token EXCEPT ![c] = Tok(key)]
    /\ startRev' = [startRev EXCEPT ![c] = key.mrev]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ orderOk' = (orderOk /\ Tok(key) > maxToken)
    /\ maxToken' = Max(maxToken, Tok(key))
    /\ UNCHANGED <<lease, dlRem, sAge, resp, paused, standbyRenewed>>
    /\ EtcdUnchanged /\ UNCHANGED <<pauseLeft, adminDeleted, staleWriteOk, hand, handovers, deadMove>>

(* The resign hold-off ends: its timer fired, or another leader was seen.   *)
HoldoffEnds(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] = "holdoff" /\ ~paused[c]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ EtcdUnchanged
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, sAge, resp, paused, standbyRenewed>>
    /\ HistUnchanged /\ HandUnchanged

-----------------------------------------------------------------------------
(******************************* MASTER actions ******************************)

(* MASTER records its local send time s and sends a keep-alive, which the   *)
(* real etcd leader (term `term') applies: it renews the lease to           *)
(* serverNow + TTL if the lease is alive, and answers (TTL, term).  Applied *)
(* at the send instant: a later application only renews to a later expiry  *)
(* or finds the lease gone, so this is the worst case.  The answer may be   *)
(* delayed arbitrarily (phase "kaReplied") or lost (RenewAbort).            *)
SendKeepAlive(c) ==
    /\ role[c] = MASTER /\ phase[c] = "idle" /\ ~paused[c]
    /\ IF Alive(lease[c])
         THEN /\ leaseRem' = [leaseRem EXCEPT ![lease[c]] = TTL]
              /\ resp' = [resp EXCEPT ![c] = [ok |-> TRUE, term |-> term, key |-> NoKey]]
         ELSE /\ resp' = [resp EXCEPT ![c] = [ok |-> FALSE, term |-> 0, key |-> NoKey]]
              /\ UNCHANGED leaseRem
    /\ phase' = [phase EXCEPT ![c] = "kaReplied"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, term, isoTerm, nextLease, revoking, key, rev, stray>>
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused, standbyRenewed>> /\ HistUnchanged /\ HandUnchanged

(* The keep-alive reaches an isolated, deposed leader (etcd issue 15247): it *)
(* acks with its old term; the renewal never reaches the real lease state.   *)
SendKeepAliveIsolated(c) ==
    /\ role[c] = MASTER /\ phase[c] = "idle" /\ ~paused[c] /\ isoTerm # 0
    /\ resp' = [resp EXCEPT ![c] = [ok |-> TRUE, term |-> isoTerm, key |-> NoKey]]
    /\ phase' = [phase EXCEPT ![c] = "kaReplied"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ EtcdUnchanged
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused, standbyRenewed>> /\ HistUnchanged /\ HandUnchanged

(* Extending the deadline to s + TTL*(1-rho) - Margin where s was `age'    *)
(* ticks ago.  The local deadline only moves forward, hence the Max.       *)
Confirm(c, age) ==
    \E d \in DRange :
        /\ dlRem' = [dlRem EXCEPT ![c] = Max(dlRem[c], Max(0, d - age))]
        /\ lagUsed' = [lagUsed EXCEPT ![c] = IF dlRem'[c] > 0 THEN 0 ELSE lagUsed[c]]

(* The MASTER ends its term (code: loseLeadership): role FOLLOWER first; its *)
(* lease is given back unless etcd said it is gone (release = FALSE).       *)
StepDown(c, release) ==
    /\ Leave(c, FOLLOWER)
    /\ IF release THEN Release(lease[c]) ELSE UNCHANGED revoking

(* The MASTER learns that K was deleted (code: keyGone): it steps down at   *)
(* once, role FOLLOWER, and enters the "probing" phase: it asks whether its *)
(* lease still exists, to tell LEASE_REVOKED from KEY_DELETED.  It keeps    *)
(* the lease id for the probe but no longer renews it.                      *)
KeyGoneStep(c) ==
    /\ role' = [role EXCEPT ![c] = FOLLOWER]
    /\ phase' = [phase EXCEPT ![c] = "probing"]
    /\ dlRem' = [dlRem EXCEPT ![c] = 0]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]
    /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<lease, revoking>>

(* The keep-alive answer arrives.  TTL <= 0: the lease is gone, step down   *)
(* (LEASE_REVOKED).  Otherwise the linearizable read is sent; it is served  *)
(* by the real leader only (an isolated leader has no quorum).  The read is *)
(* served, and its answer arrives, at the instant the ack arrives: a later  *)
(* read can only see a higher term or K gone (both fail the check), and the *)
(* confirmed deadline is anchored at s, not at the read: the worst case.    *)
(* K absent: KeyGone's probe.  K bound to another lease or create revision: *)
(* KEY_TAKEN.  Otherwise CONFIRMED iff the read's term equals the ack's.    *)
RecvKeepAlive(c) ==
    /\ role[c] = MASTER /\ phase[c] = "kaReplied" /\ ~paused[c]
    /\ LET anchor == IF MUT_RECEIVE_TIME THEN 0 ELSE sAge[c] IN
       IF ~resp[c].ok
         THEN /\ StepDown(c, FALSE)
              /\ UNCHANGED <<token, paused>>
       ELSE IF ~MUT_ACK_ONLY /\ ~Owns(c, key)
         THEN /\ IF KeyAbsent THEN KeyGoneStep(c) ELSE StepDown(c, TRUE)
              /\ UNCHANGED <<token, paused>>
       ELSE /\ IF MUT_ACK_ONLY \/ MUT_NO_TERM_CHECK \/ term = resp[c].term
                 THEN Confirm(c, anchor)
                 ELSE UNCHANGED <<dlRem, lagUsed>>   \* not confirmed; retry later
            /\ phase' = [phase EXCEPT ![c] = "idle"]
            /\ sAge' = [sAge EXCEPT ![c] = 0]
            /\ resp' = [resp EXCEPT ![c] = NoResp]
            /\ UNCHANGED <<role, lease, token, paused, revoking, standbyRenewed>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>> /\ HistUnchanged /\ HandUnchanged

(* A keep-alive / read is lost or fails: give up this round. *)
RenewAbort(c) ==
    /\ role[c] = MASTER /\ phase[c] = "kaReplied" /\ ~paused[c]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused, standbyRenewed>>
    /\ EtcdUnchanged /\ HistUnchanged /\ HandUnchanged

(* Watch / periodic read shows K bound to another lease or create revision: *)
(* KEY_TAKEN, the lease is given back.                                      *)
KeyTaken(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ ~KeyAbsent /\ ~Owns(c, key)
    /\ StepDown(c, TRUE)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchangedButRevoking /\ HistUnchanged /\ HandUnchanged

(* Watch shows K deleted: step down at once and probe the lease. *)
KeyGone(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ KeyAbsent
    /\ KeyGoneStep(c)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchanged /\ HistUnchanged /\ HandUnchanged

(* The probe ends (code: onLeaseProbed, or the PROBE timer; finishLoss).     *)
(* The lease is given back unless the probe found it gone (LEASE_REVOKED);  *)
(* after a probe timeout the code gives back a lease that may already be    *)
(* gone, which changes nothing at etcd.  Then the follower campaigns again. *)
FinishLoss(c) ==
    /\ role[c] = FOLLOWER /\ phase[c] = "probing" /\ ~paused[c]
    /\ IF Exists(lease[c]) THEN Release(lease[c]) ELSE UNCHANGED revoking
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ lease' = [lease EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>>
    /\ UNCHANGED <<role, token, dlRem, lagUsed, sAge, resp, paused, standbyRenewed>>
    /\ HistUnchanged /\ HandUnchanged

(* The local clock reached the deadline (the action may lag it by Lag, see  *)
(* Tick): LEASE_EXPIRED_LOCALLY, the lease is given back.                   *)
DeadlineStepDown(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ dlRem[c] = 0
    /\ StepDown(c, TRUE)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchangedButRevoking /\ HistUnchanged /\ HandUnchanged

(* resign() without a successor (none in the queue as the resigner sees    *)
(* it): role FOLLOWER at once (before the release applies), the lease is    *)
(* given back, and the resign hold-off begins.                              *)
Resign(c) ==
    /\ role[c] = MASTER /\ ~paused[c]
    /\ LeaveTo(c, FOLLOWER, "holdoff")
    /\ Release(lease[c])
    /\ UNCHANGED <<token, paused>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>> /\ HistUnchanged /\ HandUnchanged

(* The handover to d (PROTOCOL.md 4.5), sent by                              *)
(*  - resign() with a successor: d is the head of the queue as the resigner *)
(*    sees it;                                                              *)
(*  - the placement moves of issue 28: transferTo(d); a priority preemption *)
(*    (d ranks above the MASTER and has waited the preemption delay); a     *)
(*    MASTER that yields when unhealthy (d the next healthy candidate); an  *)
(*    operator's `leasehold transfer --to d`, carried out by the MASTER.    *)
(* What chose d is not a variable: any process d whose lease etcd still has *)
(* (its participant key P(l) lives exactly as long as l) may be chosen at   *)
(* any step, which covers every rule above.  A target that is not a live    *)
(* participant fails transferTo and the MASTER keeps its term: no step.     *)
(* The MASTER steps down first (role FOLLOWER, hold-off), keeps its lease   *)
(* as a standby lease with the MASTER's deadline, and sends                 *)
(*   Txn(If ModRevision(K) == token /\ CreateRevision(P(l)) == seen,        *)
(*       Then Put(K, id(d), lease = l), Put(P(own)), Else Get(K)),          *)
(* applied later (ApplyHandover) or never.  A stale view may name a lease   *)
(* whose holder has crashed or given it up since (a target that dies at     *)
(* once): the model reaches the same server states by letting that happen   *)
(* after the send.  Code: EtcdCommand.Handover.                             *)
Handover(c, d) ==
    /\ StandbyLease /\ role[c] = MASTER /\ ~paused[c]
    /\ handovers < MaxHandovers /\ hand[c] = NoHand
    /\ lease[d] # 0 /\ lease[d] # lease[c] /\ Exists(lease[d])
    /\ hand' = [hand EXCEPT ![c] = [st |-> "sent", tok |-> token[c], from |-> lease[c],
                                    to |-> lease[d], val |-> Id(d)]]
    /\ handovers' = handovers + 1
    /\ role' = [role EXCEPT ![c] = FOLLOWER]
    /\ phase' = [phase EXCEPT ![c] = "holdoff"]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]
    /\ UNCHANGED <<lease, token, dlRem, paused, standbyRenewed, startRev, deadMove>>
    /\ EtcdUnchanged /\ HistUnchanged

(* etcd applies a handover Txn.  The compares: K's token revision is the    *)
(* one the resigner led with (MUT_HANDOVER_UNFENCED: not compared), and the *)
(* successor's lease still exists (its participant key, with the create     *)
(* revision the resigner saw, is there exactly as long).  Committed: K gets *)
(* the successor's lease and id and a new mod revision, its create revision *)
(* is kept (an unfenced Put on an absent K creates it).  The answer is then *)
(* in flight to a waiting client; a stray copy's answer goes nowhere.  A    *)
(* successor that is down by then still has its lease until it expires,    *)
(* and K goes with it (TrackDeadTarget records it).                         *)
ApplyHandover(c) ==
    /\ hand[c].st \in {"sent", "stray"}
    /\ LET h == hand[c]
           commit == /\ MUT_HANDOVER_UNFENCED \/ (~KeyAbsent /\ Tok(key) = h.tok)
                     /\ Exists(h.to)
       IN /\ IF commit
               THEN /\ key' = [crev |-> IF KeyAbsent THEN rev + 1 ELSE key.crev,
                               mrev |-> rev + 1, lease |-> h.to, val |-> h.val]
                    /\ rev' = rev + 1
                    /\ deadMove' = IF TrackDeadTarget /\ \E d \in Cands : Id(d) = h.val /\ role[d] = STOPPED
                                    THEN rev + 1 ELSE deadMove
               ELSE UNCHANGED <<key, rev, deadMove>>
          /\ hand' = [hand EXCEPT ![c] = IF h.st = "stray" THEN NoHand
                                          ELSE [h EXCEPT !.st = IF commit THEN "ok" ELSE "refused"]]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking, stray>>
    /\ UNCHANGED cvars /\ HistUnchanged /\ UNCHANGED <<startRev, handovers>>

(* The handover's outcome reaches the resigner: committed (code:            *)
(* EtcdInput.HandedOver: it keeps its lease as a standby), refused          *)
(* (HandoverRefused), or failed (HandoverFailed: an error or a timeout,     *)
(* outcome unknown; also a committed one whose answer was lost).  Refused   *)
(* or failed: it gives its lease back, as a resign without a successor      *)
(* does, if it still holds it as a follower (an answer that finds it in a   *)
(* later term, or without that lease, is ignored).  A failed request not    *)
(* yet applied may still be applied later (a stray) or never.               *)
RecvHandover(c) ==
    /\ hand[c].st \in {"sent", "ok", "refused"} /\ ~paused[c] /\ role[c] # STOPPED
    /\ LET h == hand[c]
           holds == role[c] = FOLLOWER /\ phase[c] # "probing" /\ lease[c] = h.from
       IN \E release \in IF h.st = "ok" THEN BOOLEAN ELSE {TRUE} :   \* "ok": received, or lost
            /\ IF release /\ holds
                 THEN /\ Release(h.from)
                      /\ lease' = [lease EXCEPT ![c] = 0]
                      /\ dlRem' = [dlRem EXCEPT ![c] = 0]
                      /\ standbyRenewed' = [standbyRenewed EXCEPT ![c] = FALSE]
                 ELSE UNCHANGED <<revoking, lease, dlRem, standbyRenewed>>
            /\ \/ hand' = [hand EXCEPT ![c] = NoHand]
               \/ /\ h.st = "sent"
                  /\ hand' = [hand EXCEPT ![c] = [h EXCEPT !.st = "stray"]]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>>
    /\ UNCHANGED <<role, phase, token, lagUsed, sAge, resp, paused>>
    /\ HistUnchanged /\ UNCHANGED <<startRev, handovers, deadMove>>

(* A process that stops no longer waits for its handover's answer; a        *)
(* request not yet applied stays in the network.                            *)
HandAbandon(c) ==
    hand' = [hand EXCEPT ![c] = IF @.st \in {"sent", "stray"} THEN [@ EXCEPT !.st = "stray"]
                                                              ELSE NoHand]

(* close(): from any live role; every held lease (a standby one, a probed   *)
(* one) is given back.                                                      *)
Close(c) ==
    /\ Active(c)
    /\ Leave(c, STOPPED)
    /\ Release(lease[c])
    /\ HandAbandon(c)
    /\ UNCHANGED <<token, paused>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev, stray>> /\ HistUnchanged
    /\ UNCHANGED <<startRev, handovers, deadMove>>

(* Crash: process gone, its lease left to expire.  A handover it sent may   *)
(* still be applied.  A K handed to it that it has not adopted goes with    *)
(* its lease (TrackDeadTarget records it).                                  *)
Crash(c) ==
    /\ AllowCrash /\ role[c] # STOPPED
    /\ Leave(c, STOPPED)
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ HandAbandon(c)
    /\ deadMove' = IF /\ TrackDeadTarget /\ role[c] # MASTER /\ lease[c] # 0
                      /\ ~KeyAbsent /\ key.lease = lease[c] /\ key.mrev # key.crev
                    THEN key.mrev ELSE deadMove
    /\ UNCHANGED token /\ EtcdUnchanged /\ HistUnchanged /\ UNCHANGED <<startRev, handovers>>

Pause(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ pauseLeft > 0
    /\ paused' = [paused EXCEPT ![c] = TRUE]
    /\ UNCHANGED <<role, phase, lease, token, dlRem, lagUsed, sAge, resp, standbyRenewed>>
    /\ EtcdUnchanged /\ HistUnchanged /\ HandUnchanged

Resume(c) ==
    /\ paused[c]
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<role, phase, lease, token, dlRem, lagUsed, sAge, resp, standbyRenewed>>
    /\ EtcdUnchanged /\ HistUnchanged /\ HandUnchanged

(* A write fenced by the token: Txn(If ModRevision(K) == token, Then Put(resource)). *)
(* Issued by a process that holds a token (possibly a stale one, possibly      *)
(* delayed in the network).  Only the successful case is a step; it is stale   *)
(* if K has been written since the writer's term began (a newer term: a new    *)
(* incarnation, or a handover).                                                *)
GuardedWrite(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ token[c] # 0
    /\ IF MUT_FENCE_BY_VALUE THEN key.crev # 0 /\ key.val = Id(c)
                             ELSE key.crev # 0 /\ Tok(key) = token[c]
    /\ staleWriteOk' = (staleWriteOk /\ startRev[c] = rev)
    /\ UNCHANGED <<cvars, pauseLeft, adminDeleted, maxToken, orderOk>> /\ EtcdUnchanged
    /\ HandUnchanged

-----------------------------------------------------------------------------
(***************************** etcd / environment ***************************)

(* One tick of real time.  A MASTER whose deadline has been reached must    *)
(* step down within Lag ticks (scheduling latency): time cannot pass beyond. *)
(* Paused processes' clocks are frozen.                                      *)
Tick ==
    /\ \A c \in Masters : paused[c] \/ dlRem[c] > 0 \/ lagUsed[c] < Lag
    /\ LET np == Cardinality({c \in Cands : paused[c]}) IN
         /\ np <= pauseLeft
         /\ pauseLeft' = pauseLeft - np
    /\ now' = now + 1
    /\ leaseRem' = [l \in LeaseIds |-> IF leaseRem[l] > 0 THEN leaseRem[l] - 1 ELSE leaseRem[l]]
    /\ dlRem' = [c \in Cands |-> IF ~paused[c] /\ dlRem[c] > 0 THEN dlRem[c] - 1 ELSE dlRem[c]]
    /\ lagUsed' = [c \in Cands |-> IF ~paused[c] /\ role[c] = MASTER /\ dlRem[c] = 0
                                   THEN lagUsed[c] + 1 ELSE lagUsed[c]]
    /\ sAge' = [c \in Cands |-> IF ~paused[c] /\ Pending(c) THEN Min(sAge[c] + 1, SAgeCap)
                                ELSE sAge[c]]
    /\ UNCHANGED <<term, isoTerm, nextLease, revoking, key, rev, stray>>
    /\ UNCHANGED <<role, phase, lease, token, resp, paused, standbyRenewed>>
    /\ UNCHANGED <<adminDeleted, maxToken, orderOk, staleWriteOk>> /\ HandUnchanged

(* etcd deletes lease l and the key attached to it (server side: the       *)
(* expiry sweep or an applied revoke).                                      *)
DeleteLease(l) ==
    /\ leaseRem' = [leaseRem EXCEPT ![l] = -1]
    /\ key' = IF key.lease = l THEN NoKey ELSE key
    /\ revoking' = revoking \ {l}

(* etcd's sweep removes an expired lease (any time after expiry: only delays it). *)
SweepLease(l) ==
    /\ leaseRem[l] = 0
    /\ DeleteLease(l)
    /\ UNCHANGED <<now, term, isoTerm, nextLease, rev, stray>> /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* etcd applies a LeaseRevoke that a client sent (code: Command.Release). *)
ApplyRevoke(l) ==
    /\ l \in revoking
    /\ DeleteLease(l)
    /\ UNCHANGED <<now, term, isoTerm, nextLease, rev, stray>> /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* etcd applies the stray copy of a campaign, whose client has moved on     *)
(* (it saw the campaign lose or fail).  It puts K if K is absent and the    *)
(* lease exists; otherwise it changes nothing (a lost copy looks the same). *)
ApplyStrayCampaign ==
    /\ stray # NoStray
    /\ IF KeyAbsent /\ Exists(stray.lease)
         THEN /\ key' = [crev |-> rev + 1, mrev |-> rev + 1, lease |-> stray.lease, val |-> stray.val]
              /\ rev' = rev + 1
         ELSE UNCHANGED <<key, rev>>
    /\ stray' = NoStray
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking>>
    /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* A new etcd leader extends every lease to at least now + TTL + electionTimeout. *)
Promote == [l \in LeaseIds |-> IF leaseRem[l] >= 0
                                 THEN Max(leaseRem[l], TTL + ElectionTimeout)
                                 ELSE -1]

(* A leader change while no isolated leader is left over.  Partition then   *)
(* Heal reaches the same state, so this action is needed only while an      *)
(* isolated leader still acks (and skipping it otherwise saves states).     *)
LeaderChange ==
    /\ term < MaxTerm /\ isoTerm # 0
    /\ term' = term + 1
    /\ leaseRem' = Promote
    /\ UNCHANGED <<now, isoTerm, nextLease, revoking, key, rev, stray>>
    /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* The leader is cut off from its peers without noticing: it keeps acking   *)
(* keep-alives with its old term; the majority elects a new leader.         *)
Partition ==
    /\ term < MaxTerm /\ isoTerm = 0
    /\ isoTerm' = term
    /\ term' = term + 1
    /\ leaseRem' = Promote
    /\ UNCHANGED <<now, nextLease, revoking, key, rev, stray>> /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* The isolated leader learns it was deposed and stops acking.  Only while  *)
(* another partition can follow: otherwise healing only takes choices away  *)
(* (a MASTER may always send its keep-alive to the real leader), so every   *)
(* behaviour after it is one of the unhealed state's.                       *)
Heal ==
    /\ isoTerm # 0 /\ term < MaxTerm
    /\ isoTerm' = 0
    /\ UNCHANGED <<now, term, leaseRem, nextLease, revoking, key, rev, stray>>
    /\ UNCHANGED cvars /\ HistUnchanged /\ HandUnchanged

(* An operator deletes K with etcdctl (the lease stays). *)
AdminDelete ==
    /\ AllowAdminDelete /\ ~adminDeleted /\ ~KeyAbsent
    /\ key' = NoKey
    /\ adminDeleted' = TRUE
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking, rev, stray>>
    /\ UNCHANGED cvars /\ UNCHANGED <<pauseLeft, maxToken, orderOk, staleWriteOk>> /\ HandUnchanged

Next ==
    \/ Tick \/ LeaderChange \/ Partition \/ Heal \/ AdminDelete \/ ApplyStrayCampaign
    \/ \E l \in LeaseIds : SweepLease(l) \/ ApplyRevoke(l)
    \/ \E c \in Cands :
         \/ Campaign(c) \/ StandbyCampaign(c) \/ ApplyCampaign(c)
         \/ RecvCampaign(c) \/ CampaignFailed(c)
         \/ GrantStandby(c) \/ RenewStandby(c) \/ AbandonStandby(c) \/ Adopt(c)
         \/ HoldoffEnds(c)
         \/ SendKeepAlive(c) \/ SendKeepAliveIsolated(c)
         \/ RecvKeepAlive(c) \/ RenewAbort(c)
         \/ KeyTaken(c) \/ KeyGone(c) \/ FinishLoss(c)
         \/ DeadlineStepDown(c) \/ Resign(c) \/ Close(c)
         \/ (\E d \in Cands \ {c} : Handover(c, d)) \/ ApplyHandover(c) \/ RecvHandover(c)
         \/ Crash(c) \/ Pause(c) \/ Resume(c) \/ GuardedWrite(c)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(******************************** Properties ********************************)

(* No overlap, as PROTOCOL.md promises it (what isLeader() answers): at most *)
(* one process is MASTER with its local clock before its deadline.  Not      *)
(* claimed after an administrative deletion.                                 *)
NoOverlapInv == ~adminDeleted => Cardinality({c \in Masters : dlRem[c] > 0}) <= 1

(* The stronger, role-only form: at most one process has role MASTER.  A     *)
(* MASTER counts until its step-down has actually run, so a step-down that   *)
(* lags the deadline counts too; this is what the callbacks expose, and the  *)
(* only reading in which the lag and the margin matter (README, finding 2).  *)
OneMasterRoleInv == ~adminDeleted => Cardinality(Masters) <= 1

(* A MASTER within its deadline holds K, bound to its lease and incarnation, *)
(* and that lease is alive at etcd.                                          *)
MasterOwnsKeyInv ==
    ~adminDeleted =>
        \A c \in Masters : dlRem[c] > 0 =>
            /\ OwnsByIncarnation(c, key)
            /\ Alive(lease[c])

(* Every lease a process holds (MASTER's, CANDIDATE's, a follower's standby  *)
(* lease) is alive at etcd while the holder's clock is before its deadline:  *)
(* the deadline rule (PROTOCOL.md 4.1) checked directly, standby leases too. *)
HeldLeaseOutlivesDeadlineInv ==
    \A c \in Cands :
        (role[c] # STOPPED /\ phase[c] # "probing" /\ lease[c] # 0 /\ dlRem[c] > 0)
            => Alive(lease[c])

(* Tokens increase from one mastership to the next (not claimed after an    *)
(* administrative deletion, README finding 4; fails under pauses beyond the  *)
(* margin, finding 3) and a guarded write with a stale token never succeeds  *)
(* (always claimed).                                                         *)
TokenOrderInv == orderOk
StaleWriteInv == staleWriteOk
FencingMonotonicInv == staleWriteOk /\ (~adminDeleted => orderOk)

(* ---- Non-vacuity checks: each MUST be violated. ---- *)
(* Sanity_DeepRenewal.cfg: a second incarnation's MASTER can reach the point *)
(* where a renewal is confirmed after an etcd leader change.                 *)
SanityNoDeepRenewal ==
    ~(\E c \in Masters : /\ token[c] >= 2 /\ term >= 2
                         /\ phase[c] = "kaReplied" /\ resp[c].ok /\ resp[c].term = term
                         /\ OwnsByIncarnation(c, key))

(* Sanity_StandbyTakeover.cfg: a follower renews its standby lease, the     *)
(* renewal is confirmed, and it wins a campaign with that lease.            *)
SanityNoStandbyTakeover == ~(\E c \in Masters : standbyRenewed[c])

(* Sanity_Handover.cfg: a MASTER hands K over and the successor adopts it:  *)
(* a MASTER owns K whose mod revision is not its create revision.          *)
SanityNoHandover ==
    ~(\E c \in Masters : key.mrev # key.crev /\ OwnsByIncarnation(c, key))

(* Sanity_TransferDeadTarget.cfg (needs TrackDeadTarget): K is handed to a  *)
(* process that is down, or goes down before adopting it; K goes with that  *)
(* process's lease, and a later term begins.                                *)
SanityNoTermAfterDeadTarget ==
    ~(\E c \in Masters : deadMove # 0 /\ token[c] > deadMove)
=============================================================================
