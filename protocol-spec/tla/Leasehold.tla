----------------------------- MODULE Leasehold -----------------------------
(***************************************************************************)
(* TLA+ model of the Leasehold leader-election protocol on etcd.           *)
(*                                                                         *)
(* Mapping to the code (the elector's state machine in core):            *)
(*   role[c] \in {FOLLOWER, CANDIDATE, MASTER, STOPPED} is the elector's   *)
(*   state.  phase[c] is the request the process is waiting for:           *)
(*     CANDIDATE: "granted" (LeaseGrant done, send time s recorded, Txn     *)
(*                in flight) -> "txnDone" (Txn committed, answer in flight) *)
(*                -> MASTER / FOLLOWER.                                    *)
(*     MASTER:    "idle" -> "kaReplied" (keep-alive sent at local time s,  *)
(*                etcd's answer (TTL, term) in flight) -> on arrival: the  *)
(*                linearizable read, then "idle" again.                    *)
(*     FOLLOWER / STOPPED: "idle".                                          *)
(*   lease[c], token[c]: the lease id and the fencing token (create        *)
(*   revision of K) of the current / last mastership; the token is kept    *)
(*   after stepping down because writes it guarded may still be in flight. *)
(*   Each action's comment names the protocol step it stands for.          *)
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
(* instant and the read after an ack is served when the ack arrives (the   *)
(* worst cases, see README); answers may be delayed arbitrarily or lost.   *)
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
    MaxLeases,        \* lease grants available (bounds the number of campaigns)
    MaxTerm,          \* highest etcd raft term (bounds leader changes)
    AllowAdminDelete, \* operator may delete K with etcdctl (once)
    AllowCrash,       \* candidates may crash (-> STOPPED, lease left to expire)
    \* ---- mutations (all FALSE for the real protocol) ----
    MUT_RECEIVE_TIME,      \* (a) renewal deadline measured from the ack's receive time
    MUT_ACK_ONLY,          \* (c) renewal confirmed by the keep-alive ack alone
    MUT_NO_TERM_CHECK,     \* (c') read done, but its raft term not compared with the ack's
    MUT_SAME_ID,           \* (d) all candidates configured with the same candidate id
    MUT_OWNER_BY_VALUE,    \* (d) master checks ownership by key value == id (read/watch)
    MUT_RESUME_BY_VALUE,   \* (d) losing Txn whose Get shows value == id => "already master"
    MUT_NO_DRIFT_FACTOR,   \* (e) deadline = s + TTL - Margin (no (1-rho) factor)
    MUT_FENCE_BY_VALUE,    \* (f) guarded write compares Value(K) == id, not CreateRevision
    MUT_NO_LATE_WIN_CHECK  \* (g) a Txn success whose deadline already passed still => MASTER

ASSUME /\ TTL \in Nat \ {0} /\ ElectionTimeout \in Nat
       /\ RhoNum \in Nat /\ RhoDen \in Nat \ {0} /\ RhoNum < RhoDen
       /\ Margin \in Nat /\ Lag \in Nat /\ MaxPause \in Nat
       /\ MaxLeases \in Nat \ {0} /\ MaxTerm \in Nat \ {0}

FOLLOWER == "FOLLOWER"
CANDIDATE == "CANDIDATE"
MASTER == "MASTER"
STOPPED == "STOPPED"
Roles == {FOLLOWER, CANDIDATE, MASTER, STOPPED}
Phases == {"idle", "granted", "txnDone", "kaReplied"}

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

LeaseIds == 1..MaxLeases
NoVal == "none"
Id(c) == IF MUT_SAME_ID THEN "shared" ELSE c
Vals == {Id(c) : c \in Cands} \cup {NoVal}
NoKey == [rev |-> 0, lease |-> 0, val |-> NoVal]
Keys == [rev : 0..MaxLeases, lease : 0..MaxLeases, val : Vals]
NoResp == [ok |-> FALSE, term |-> 0, key |-> NoKey]

VARIABLES
    now,          \* real time (history only, not in the VIEW)
    term,         \* raft term of the real etcd leader
    isoTerm,      \* term of an isolated, deposed leader still acking keep-alives (0: none)
    leaseRem,     \* lease -> ticks until expiry; 0 = expired but not yet swept; -1 = no such lease
    nextLease,    \* next lease id etcd will grant
    revoking,     \* leases with a revoke request in flight
    key,          \* the election key K (NoKey when absent)
    rev,          \* revision counter: create revision of the latest incarnation of K
    role, phase, lease, token,
    dlRem,        \* MASTER: ticks until its local clock reaches its deadline (0 = reached)
    lagUsed,      \* MASTER: ticks spent past the deadline without having stepped down
    sAge,         \* ticks (of the candidate's clock running) since the pending request's send time s
    resp,         \* response in flight / received for the pending request
    paused,       \* process paused: clock and actions stopped
    pauseLeft,    \* remaining pause budget
    adminDeleted, \* history: K was deleted by an operator
    maxToken,     \* history: highest token ever given to a MASTER
    orderOk,      \* history: every new MASTER's token exceeded all earlier ones
    staleWriteOk  \* history: no guarded write with a stale token succeeded

cvars == <<role, phase, lease, token, dlRem, lagUsed, sAge, resp, paused>>
vars == <<now, term, isoTerm, leaseRem, nextLease, revoking, key, rev, cvars,
          pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk>>
View == <<term, isoTerm, leaseRem, nextLease, revoking, key, rev, cvars,
          pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk>>
Symm == Permutations(Cands)

SAgeCap == Max(DMax, 1)   \* beyond DMax the age no longer changes any deadline
Pending(c) == phase[c] # "idle"
Exists(l) == l # 0 /\ leaseRem[l] >= 0
Alive(l) == l # 0 /\ leaseRem[l] > 0
KeyAbsent == key.rev = 0
Masters == {c \in Cands : role[c] = MASTER}

(* Does K (as seen by a read) belong to c?  Real protocol: lease id + create revision. *)
OwnsByIncarnation(c, k) == k.rev # 0 /\ k.rev = token[c] /\ k.lease = lease[c]
Owns(c, k) == IF MUT_OWNER_BY_VALUE THEN k.rev # 0 /\ k.val = Id(c)
                                    ELSE OwnsByIncarnation(c, k)

TypeOK ==
    /\ now \in Nat
    /\ term \in 1..MaxTerm /\ isoTerm \in 0..MaxTerm /\ isoTerm < term
    /\ leaseRem \in [LeaseIds -> -1..(TTL + ElectionTimeout)]
    /\ nextLease \in 1..(MaxLeases + 1)
    /\ revoking \subseteq LeaseIds
    /\ key \in Keys /\ rev \in 0..MaxLeases
    /\ role \in [Cands -> Roles] /\ phase \in [Cands -> Phases]
    /\ lease \in [Cands -> 0..MaxLeases] /\ token \in [Cands -> 0..MaxLeases]
    /\ dlRem \in [Cands -> 0..DMax] /\ lagUsed \in [Cands -> 0..Lag]
    /\ sAge \in [Cands -> 0..SAgeCap]
    /\ resp \in [Cands -> [ok : BOOLEAN, term : 0..MaxTerm, key : Keys]]
    /\ paused \in [Cands -> BOOLEAN] /\ pauseLeft \in 0..MaxPause
    /\ adminDeleted \in BOOLEAN /\ maxToken \in 0..MaxLeases
    /\ orderOk \in BOOLEAN /\ staleWriteOk \in BOOLEAN

Init ==
    /\ now = 0 /\ term = 1 /\ isoTerm = 0
    /\ leaseRem = [l \in LeaseIds |-> -1] /\ nextLease = 1 /\ revoking = {}
    /\ key = NoKey /\ rev = 0
    /\ role = [c \in Cands |-> FOLLOWER] /\ phase = [c \in Cands |-> "idle"]
    /\ lease = [c \in Cands |-> 0] /\ token = [c \in Cands |-> 0]
    /\ dlRem = [c \in Cands |-> 0] /\ lagUsed = [c \in Cands |-> 0]
    /\ sAge = [c \in Cands |-> 0] /\ resp = [c \in Cands |-> NoResp]
    /\ paused = [c \in Cands |-> FALSE] /\ pauseLeft = MaxPause
    /\ adminDeleted = FALSE /\ maxToken = 0 /\ orderOk = TRUE /\ staleWriteOk = TRUE

(* c leaves MASTER/CANDIDATE for role r; its pending request is forgotten. *)
(* token[c] is kept: writes it issued may still be in flight (fencing).    *)
Leave(c, r) ==
    /\ role' = [role EXCEPT ![c] = r]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ lease' = [lease EXCEPT ![c] = 0]
    /\ dlRem' = [dlRem EXCEPT ![c] = 0]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]

EtcdUnchanged == UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking, key, rev>>
HistUnchanged == UNCHANGED <<pauseLeft, adminDeleted, maxToken, orderOk, staleWriteOk>>

-----------------------------------------------------------------------------
(*************************** Candidate actions *****************************)

(* FOLLOWER: the watch / periodic linearizable Get shows K absent.  It     *)
(* becomes CANDIDATE, records its local send time s and sends LeaseGrant;  *)
(* etcd grants the lease with expiry = serverNow + TTL.  The grant is      *)
(* applied at the send instant: applying it later only makes the lease     *)
(* expire later, so this is the worst case for safety.  The grant's answer *)
(* arrives and the Txn is sent; the Txn is applied any time later.         *)
BecomeCandidate(c) ==
    /\ role[c] = FOLLOWER /\ ~paused[c] /\ KeyAbsent /\ nextLease <= MaxLeases
    /\ role' = [role EXCEPT ![c] = CANDIDATE]
    /\ phase' = [phase EXCEPT ![c] = "granted"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ leaseRem' = [leaseRem EXCEPT ![nextLease] = TTL]
    /\ lease' = [lease EXCEPT ![c] = nextLease]
    /\ nextLease' = nextLease + 1
    /\ UNCHANGED <<now, term, isoTerm, revoking, key, rev>>
    /\ UNCHANGED <<token, dlRem, lagUsed, resp, paused>> /\ HistUnchanged

(* etcd commits Txn(If CreateRevision(K)==0, Then Put(K, id, lease), Else Get(K)). *)
(* A Put with a lease that no longer exists fails: the client then sees an  *)
(* error (CandError).  An expired lease that is not yet swept still exists.  *)
ServerTxn(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "granted"
    /\ IF KeyAbsent
         THEN /\ Exists(lease[c])
              /\ key' = [rev |-> rev + 1, lease |-> lease[c], val |-> Id(c)]
              /\ rev' = rev + 1
              /\ resp' = [resp EXCEPT ![c] = [ok |-> TRUE, term |-> term, key |-> key']]
         ELSE /\ resp' = [resp EXCEPT ![c] = [ok |-> FALSE, term |-> term, key |-> key]]
              /\ UNCHANGED <<key, rev>>
    /\ phase' = [phase EXCEPT ![c] = "txnDone"]
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking>>
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, sAge, paused>> /\ HistUnchanged

(* The Txn response arrives.  Success -> MASTER with token = create revision *)
(* and deadline s + TTL*(1-rho) - Margin, s = the GRANT's send time.         *)
(* A success whose deadline has already passed (the response was delayed)  *)
(* must NOT make c MASTER (see README, finding 1).  Failure -> FOLLOWER,     *)
(* revoking the unused lease.                                                *)
RecvTxn(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "txnDone" /\ ~paused[c]
    /\ LET r == resp[c]
           claim == r.ok \/ (MUT_RESUME_BY_VALUE /\ r.key.rev # 0 /\ r.key.val = Id(c))
       IN \E d \in DRange :
            LET dl == Max(0, d - sAge[c]) IN
            IF claim /\ (dl > 0 \/ MUT_NO_LATE_WIN_CHECK)
              THEN /\ role' = [role EXCEPT ![c] = MASTER]
                   /\ phase' = [phase EXCEPT ![c] = "idle"]
                   /\ token' = [token EXCEPT ![c] = r.key.rev]
                   /\ dlRem' = [dlRem EXCEPT ![c] = dl]
                   /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
                   /\ sAge' = [sAge EXCEPT ![c] = 0]
                   /\ resp' = [resp EXCEPT ![c] = NoResp]
                   /\ orderOk' = (orderOk /\ r.key.rev > maxToken)
                   /\ maxToken' = Max(maxToken, r.key.rev)
                   /\ UNCHANGED <<lease, paused, revoking>>
              ELSE /\ Leave(c, FOLLOWER)
                   /\ revoking' = revoking \cup {lease[c]}
                   /\ UNCHANGED <<token, paused, orderOk, maxToken>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev>>
    /\ UNCHANGED <<pauseLeft, adminDeleted, staleWriteOk>>

(* Any request of the campaign fails / times out (the Txn may nevertheless *)
(* have been committed).  The lease, if any, is left to expire.            *)
CandError(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] \in {"granted", "txnDone"} /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchanged /\ HistUnchanged

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
         ELSE /\ resp' = [resp EXCEPT ![c] = [ok |-> FALSE, term |-> term, key |-> NoKey]]
              /\ UNCHANGED leaseRem
    /\ phase' = [phase EXCEPT ![c] = "kaReplied"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, term, isoTerm, nextLease, revoking, key, rev>>
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused>> /\ HistUnchanged

(* The keep-alive reaches an isolated, deposed leader (etcd issue 15247): it *)
(* acks with its old term; the renewal never reaches the real lease state.   *)
SendKeepAliveIsolated(c) ==
    /\ role[c] = MASTER /\ phase[c] = "idle" /\ ~paused[c] /\ isoTerm # 0
    /\ resp' = [resp EXCEPT ![c] = [ok |-> TRUE, term |-> isoTerm, key |-> NoKey]]
    /\ phase' = [phase EXCEPT ![c] = "kaReplied"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ EtcdUnchanged
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused>> /\ HistUnchanged

(* Extending the deadline to s + TTL*(1-rho) - Margin where s was `age'    *)
(* ticks ago.  The local deadline only moves forward, hence the Max.       *)
Confirm(c, age) ==
    \E d \in DRange :
        /\ dlRem' = [dlRem EXCEPT ![c] = Max(dlRem[c], Max(0, d - age))]
        /\ lagUsed' = [lagUsed EXCEPT ![c] = IF dlRem'[c] > 0 THEN 0 ELSE lagUsed[c]]

(* The keep-alive answer arrives.  TTL <= 0: the lease is gone, step down.  *)
(* Otherwise the linearizable read is sent; it is served by the real leader *)
(* only (an isolated leader has no quorum).  The read is served, and its    *)
(* answer arrives, at the instant the ack arrives: a later read can only    *)
(* see a higher term or K gone (both fail the check), and the confirmed     *)
(* deadline is anchored at s, not at the read, so this is the worst case.   *)
(* CONFIRMED iff K exists, bound to this lease and create revision, and the *)
(* read's term equals the ack's term.                                       *)
RecvKeepAlive(c) ==
    /\ role[c] = MASTER /\ phase[c] = "kaReplied" /\ ~paused[c]
    /\ LET anchor == IF MUT_RECEIVE_TIME THEN 0 ELSE sAge[c] IN
       IF ~resp[c].ok \/ (~MUT_ACK_ONLY /\ ~Owns(c, key))
         THEN /\ Leave(c, FOLLOWER)
              /\ UNCHANGED <<token, paused>>
         ELSE /\ IF MUT_ACK_ONLY \/ MUT_NO_TERM_CHECK \/ term = resp[c].term
                   THEN Confirm(c, anchor)
                   ELSE UNCHANGED <<dlRem, lagUsed>>   \* not confirmed; retry later
              /\ phase' = [phase EXCEPT ![c] = "idle"]
              /\ sAge' = [sAge EXCEPT ![c] = 0]
              /\ resp' = [resp EXCEPT ![c] = NoResp]
              /\ UNCHANGED <<role, lease, token, paused>>
    /\ EtcdUnchanged /\ HistUnchanged

(* A keep-alive / read is lost or fails: give up this round. *)
RenewAbort(c) ==
    /\ role[c] = MASTER /\ phase[c] = "kaReplied" /\ ~paused[c]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ resp' = [resp EXCEPT ![c] = NoResp]
    /\ UNCHANGED <<role, lease, token, dlRem, lagUsed, paused>>
    /\ EtcdUnchanged /\ HistUnchanged

(* Watch / periodic read shows K deleted or bound to another incarnation. *)
WatchStepDown(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ ~Owns(c, key)
    /\ Leave(c, FOLLOWER)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchanged /\ HistUnchanged

(* The local clock reached the deadline (the action may lag it by Lag, see Tick). *)
DeadlineStepDown(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ dlRem[c] = 0
    /\ Leave(c, FOLLOWER)
    /\ UNCHANGED <<token, paused>> /\ EtcdUnchanged /\ HistUnchanged

(* resign(): revoke the lease and become FOLLOWER at once (before the revoke applies). *)
Resign(c) ==
    /\ role[c] = MASTER /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ revoking' = revoking \cup {lease[c]}
    /\ UNCHANGED <<token, paused>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev>> /\ HistUnchanged

(* close(): same, but final. *)
Close(c) ==
    /\ role[c] \in {FOLLOWER, CANDIDATE, MASTER} /\ ~paused[c]
    /\ Leave(c, STOPPED)
    /\ revoking' = IF lease[c] # 0 THEN revoking \cup {lease[c]} ELSE revoking
    /\ UNCHANGED <<token, paused>>
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, key, rev>> /\ HistUnchanged

(* Crash: process gone, its lease left to expire. *)
Crash(c) ==
    /\ AllowCrash /\ role[c] # STOPPED
    /\ Leave(c, STOPPED)
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ UNCHANGED token /\ EtcdUnchanged /\ HistUnchanged

Pause(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ pauseLeft > 0
    /\ paused' = [paused EXCEPT ![c] = TRUE]
    /\ UNCHANGED <<role, phase, lease, token, dlRem, lagUsed, sAge, resp>>
    /\ EtcdUnchanged /\ HistUnchanged

Resume(c) ==
    /\ paused[c]
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<role, phase, lease, token, dlRem, lagUsed, sAge, resp>>
    /\ EtcdUnchanged /\ HistUnchanged

(* A write fenced by the token: Txn(If CreateRevision(K) == token, Then Put(resource)). *)
(* Issued by a process that holds a token (possibly a stale one, possibly      *)
(* delayed in the network).  Only the successful case is a step; it is stale   *)
(* if a newer incarnation of K has been created since.                         *)
GuardedWrite(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ token[c] # 0
    /\ IF MUT_FENCE_BY_VALUE THEN key.rev # 0 /\ key.val = Id(c)
                             ELSE key.rev # 0 /\ key.rev = token[c]
    /\ staleWriteOk' = (staleWriteOk /\ token[c] = rev)
    /\ UNCHANGED <<cvars, pauseLeft, adminDeleted, maxToken, orderOk>> /\ EtcdUnchanged

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
    /\ UNCHANGED <<term, isoTerm, nextLease, revoking, key, rev>>
    /\ UNCHANGED <<role, phase, lease, token, resp, paused>>
    /\ UNCHANGED <<adminDeleted, maxToken, orderOk, staleWriteOk>>

(* Lease l and the key attached to it are deleted. *)
DropLease(l) ==
    /\ leaseRem' = [leaseRem EXCEPT ![l] = -1]
    /\ key' = IF key.lease = l THEN NoKey ELSE key
    /\ revoking' = revoking \ {l}

(* etcd's sweep removes an expired lease (any time after expiry: only delays it). *)
ExpireLease(l) ==
    /\ leaseRem[l] = 0
    /\ DropLease(l)
    /\ UNCHANGED <<now, term, isoTerm, nextLease, rev>> /\ UNCHANGED cvars /\ HistUnchanged

ApplyRevoke(l) ==
    /\ l \in revoking
    /\ DropLease(l)
    /\ UNCHANGED <<now, term, isoTerm, nextLease, rev>> /\ UNCHANGED cvars /\ HistUnchanged

(* A new etcd leader extends every lease to at least now + TTL + electionTimeout. *)
Promote == [l \in LeaseIds |-> IF leaseRem[l] >= 0
                                 THEN Max(leaseRem[l], TTL + ElectionTimeout)
                                 ELSE -1]

LeaderChange ==
    /\ term < MaxTerm
    /\ term' = term + 1
    /\ leaseRem' = Promote
    /\ UNCHANGED <<now, isoTerm, nextLease, revoking, key, rev>> /\ UNCHANGED cvars /\ HistUnchanged

(* The leader is cut off from its peers without noticing: it keeps acking   *)
(* keep-alives with its old term; the majority elects a new leader.         *)
Partition ==
    /\ term < MaxTerm /\ isoTerm = 0
    /\ isoTerm' = term
    /\ term' = term + 1
    /\ leaseRem' = Promote
    /\ UNCHANGED <<now, nextLease, revoking, key, rev>> /\ UNCHANGED cvars /\ HistUnchanged

(* The isolated leader learns it was deposed and stops acking. *)
Heal ==
    /\ isoTerm # 0
    /\ isoTerm' = 0
    /\ UNCHANGED <<now, term, leaseRem, nextLease, revoking, key, rev>>
    /\ UNCHANGED cvars /\ HistUnchanged

(* An operator deletes K with etcdctl (the lease stays). *)
AdminDelete ==
    /\ AllowAdminDelete /\ ~adminDeleted /\ ~KeyAbsent
    /\ key' = NoKey
    /\ adminDeleted' = TRUE
    /\ UNCHANGED <<now, term, isoTerm, leaseRem, nextLease, revoking, rev>>
    /\ UNCHANGED cvars /\ UNCHANGED <<pauseLeft, maxToken, orderOk, staleWriteOk>>

Next ==
    \/ Tick \/ LeaderChange \/ Partition \/ Heal \/ AdminDelete
    \/ \E l \in LeaseIds : ExpireLease(l) \/ ApplyRevoke(l)
    \/ \E c \in Cands :
         \/ BecomeCandidate(c) \/ ServerTxn(c)
         \/ RecvTxn(c) \/ CandError(c)
         \/ SendKeepAlive(c) \/ SendKeepAliveIsolated(c)
         \/ RecvKeepAlive(c) \/ RenewAbort(c)
         \/ WatchStepDown(c) \/ DeadlineStepDown(c) \/ Resign(c) \/ Close(c)
         \/ Crash(c) \/ Pause(c) \/ Resume(c) \/ GuardedWrite(c)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(******************************** Properties ********************************)

(* At most one process acts as MASTER: role MASTER counts until the step-down *)
(* action has run (this is what isLeader()/the callbacks expose), so a        *)
(* lagging step-down counts.  Not claimed after an administrative deletion.   *)
NoOverlapInv == ~adminDeleted => Cardinality(Masters) <= 1

(* The weaker, literal reading: MASTER with local clock < deadline.          *)
NoOverlapClockInv == ~adminDeleted => Cardinality({c \in Masters : dlRem[c] > 0}) <= 1

(* A MASTER within its deadline holds K, bound to its lease and incarnation, *)
(* and that lease is alive at etcd.                                          *)
MasterOwnsKeyInv ==
    ~adminDeleted =>
        \A c \in Masters : dlRem[c] > 0 =>
            /\ OwnsByIncarnation(c, key)
            /\ Alive(lease[c])

(* Tokens increase from one mastership to the next (not claimed after an    *)
(* administrative deletion, README finding 4; fails under pauses beyond the  *)
(* margin, finding 3) and a guarded write with a stale token never succeeds  *)
(* (always claimed).                                                         *)
TokenOrderInv == orderOk
StaleWriteInv == staleWriteOk
FencingMonotonicInv == staleWriteOk /\ (~adminDeleted => orderOk)

(* ---- Non-vacuity check: this MUST be violated (Sanity_DeepRenewal.cfg). ---- *)
(* A second incarnation's MASTER can reach the point where a renewal is      *)
(* confirmed after an etcd leader change.                                    *)
SanityNoDeepRenewal ==
    ~(\E c \in Masters : /\ token[c] >= 2 /\ term >= 2
                         /\ phase[c] = "kaReplied" /\ resp[c].ok /\ resp[c].term = term
                         /\ OwnsByIncarnation(c, key))
=============================================================================
