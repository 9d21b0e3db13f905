---------------------------- MODULE LeaseholdSql ----------------------------
(***************************************************************************)
(* TLA+ model of the Leasehold protocol on a SQL lease row (PROTOCOL.md,  *)
(* section 10, "SQL backend"): MariaDB/MySQL, and the PostgreSQL dialect,  *)
(* which keeps the lease row and differs only in its wake-up.             *)
(*                                                                         *)
(* Mapping to the protocol:                                                *)
(*   role[c] \in {FOLLOWER, CANDIDATE, MASTER, STOPPED}: the elector state. *)
(*   row: the lease row of the election name.  A row incarnation is named  *)
(*     by its take number k \in 1..MaxTakes, which stands for BOTH its      *)
(*     holder token (random per take attempt) and its epoch (incremented by *)
(*     every take): the protocol compares the pair, and each is unique per  *)
(*     take.  holder = 0 is the released row (holder = '').  cand is the    *)
(*     candidate column (display only; compared by mutations only).  exp    *)
(*     is the server-clock countdown to expires_at (0 = expired by          *)
(*     UTC_TIMESTAMP(6)).  The version column is abstracted by obsOk (below). *)
(*   phase[c]: "take" (the take statement sent and applied; its reply in   *)
(*     flight), "renew" (a renewal sent and applied; its reply in flight),  *)
(*     "idle".  ok[c] is the reply's content (one row changed or not).      *)
(*   att[c]: the take number of c's attempt in flight, or of an attempt    *)
(*     whose reply was lost (an "orphan", resolved by the next read).       *)
(*     GHOST: an attempt whose statement changed nothing.                   *)
(*   token[c]: take number (= epoch and holder) of c's last term; kept     *)
(*     after stepping down because guarded writes may still be issued.      *)
(*   obs[c], obsOk[c], obsWait[c]: a follower's last read of the row:     *)
(*     "free" (absent or released) or "held"; obsOk is TRUE while the row   *)
(*     has not been written since that read (the (holder, version) the      *)
(*     take's WHERE compares still match); obsWait counts down the real     *)
(*     time until the follower's clock has measured TTL*(1+rho) since the   *)
(*     read's reply arrived.                                                *)
(*   lk[c]: the holder's session lock that c's term session holds: the     *)
(*     named lock GET_LOCK('leasehold/<holder>') on MariaDB, the advisory   *)
(*     lock pg_advisory_lock(<holder>) on PostgreSQL (0: none, or the       *)
(*     session has ended).  A session ends on KILL / pg_terminate_backend,  *)
(*     on a server restart, when the client closes it after a lost reply,   *)
(*     or (crashed client) when the server notices.                         *)
(*   wakeUp[c]: the kinds of wake-up on their way to c (WakeUps, below):   *)
(*     "gone", the holder let go or its session ended (a notification sent  *)
(*     by the commit of a release, PostgreSQL LISTEN/NOTIFY; the grant of   *)
(*     the holder's session lock c waits on), and "taken" (a notification   *)
(*     sent by the commit of a take).  Only a hint: it arrives late, twice  *)
(*     or never, and a woken follower only reads the row, which decides.    *)
(*   guard[c]: c's user transaction holds the shared lock of the guard's   *)
(*     SELECT epoch, holder ... FOR SHARE on the row.                       *)
(*                                                                         *)
(* TIME is discrete and all timers are countdowns, as in Leasehold.tla;    *)
(* `now' is history only and left out of the VIEW.  Each measured local    *)
(* interval gets its own clock rate in [1-rho, 1+rho] (DMin..DMax).  The   *)
(* server clock runs with real time except for forward jumps (NTP steps),  *)
(* which shorten `exp'; backward jumps only lengthen it (liveness only).   *)
(*                                                                         *)
(* Message timing: each statement is applied at its send instant (the     *)
(* earliest, hence worst, case: a later application sees a later row and   *)
(* only renews later or fails) and its reply may be delayed arbitrarily or *)
(* lost.  A read's reply is taken to arrive at the instant it is served    *)
(* (its wait then starts earliest).  A paused server is any stretch in     *)
(* which no statement applies; requests it holds apply later, which is the *)
(* same as being sent later.                                               *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, TLC

CONSTANTS
    Cands,            \* candidate processes (model values; symmetric)
    TTL,              \* lease TTL in ticks
    RhoNum, RhoDen,   \* maxDriftRate rho = RhoNum / RhoDen
    Margin,           \* safety margin, in local-clock ticks
    Lag,              \* step-down may run up to Lag ticks after the deadline
    MaxPause,         \* total ticks candidates may spend paused (whole run)
    MaxTakes,         \* successful takes (row incarnations) in a run
    MaxKills,         \* sessions killed from outside (KILL <id>)
    MaxRestarts,      \* server restarts (named locks and sessions lost, rows kept)
    MaxJump,          \* total ticks the server clock may step forward
    SameId,           \* all candidates configured with the same candidate id
    AllowCrash,       \* candidates may crash (STOPPED, session left to the server)
    AllowAdminDelete, \* an operator may DELETE the row (once)
    WakeUps,          \* wake-up channels modelled as explicit hints: a subset of
                      \* {"lock", "notify"}; {} folds the wake-up into Observe
    \* ---- mutations (all FALSE for the real protocol) ----
    MUT_RECEIVE_TIME,      \* renewal deadline from the reply's receive time, not the send time
    MUT_FENCE_BY_HOLDER,   \* the guard compares the candidate id, not epoch and holder token
    MUT_TAKE_ON_LOCK,      \* a follower woken by GET_LOCK takes the row at once
    MUT_HOLDER_IS_ID,      \* holder = candidate id: an orphaned attempt "recognises" another's row
    MUT_SERVER_CLOCK_ONLY, \* a take needs only expires_at <= UTC_TIMESTAMP(6) (no observed wait)
    MUT_NO_LATE_WIN_CHECK, \* a take whose reply arrives after its deadline still makes a MASTER
    MUT_GUARD_NO_LOCK,     \* the guard reads without FOR SHARE (no shared lock until commit)
    MUT_WAKE_DECIDES       \* a woken follower takes the row whatever it shows (the wake-up decides)

ASSUME /\ TTL \in Nat \ {0}
       /\ RhoNum \in Nat /\ RhoDen \in Nat \ {0} /\ RhoNum < RhoDen
       /\ Margin \in Nat /\ Lag \in Nat /\ MaxPause \in Nat
       /\ MaxTakes \in Nat \ {0} /\ MaxKills \in Nat /\ MaxRestarts \in Nat /\ MaxJump \in Nat
       /\ SameId \in BOOLEAN /\ AllowCrash \in BOOLEAN /\ AllowAdminDelete \in BOOLEAN
       /\ WakeUps \subseteq {"lock", "notify"}

FOLLOWER == "FOLLOWER"
CANDIDATE == "CANDIDATE"
MASTER == "MASTER"
STOPPED == "STOPPED"
Roles == {FOLLOWER, CANDIDATE, MASTER, STOPPED}
Phases == {"idle", "take", "renew"}
ObsKinds == {"none", "free", "held"}
WakeKinds == {"gone", "taken"}   \* see wakeUp

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b
CeilDiv(a, b) == IF a <= 0 THEN 0 ELSE (a + b - 1) \div b

(* The MASTER's deadline: local span TTL*(1-rho) - Margin from a send time; *)
(* the real time a clock with rate in [1-rho, 1+rho] needs for it.          *)
LocalSpanTimesDen == TTL * (RhoDen - RhoNum) - Margin * RhoDen
DMin == CeilDiv(LocalSpanTimesDen, RhoDen + RhoNum)
DMax == CeilDiv(LocalSpanTimesDen, RhoDen - RhoNum)
DRange == DMin..DMax
(* A follower's wait: local span TTL*(1+rho) from a read's arrival; a clock *)
(* running at most 1+rho needs at least TTL of real time for it.  Waiting   *)
(* longer only delays a take, which the model can always do anyway, so the *)
(* shortest real duration covers every clock rate.                         *)
WMin == CeilDiv(TTL * (RhoDen + RhoNum), RhoDen + RhoNum)

Takes == 1..MaxTakes
GHOST == MaxTakes + 1
NoVal == "none"
Id(c) == IF SameId THEN "shared" ELSE c
Vals == {Id(c) : c \in Cands} \cup {NoVal}
NoRow == [ex |-> FALSE, holder |-> 0, cand |-> NoVal, exp |-> 0]
Rows == [ex : BOOLEAN, holder : 0..MaxTakes, cand : Vals, exp : 0..TTL]

VARIABLES
    now,          \* real time (history only, not in the VIEW)
    row,          \* the lease row
    nextTake,     \* take number of the next successful take
    role, phase, ok, att, token,
    dlRem,        \* MASTER: ticks until its local clock reaches its deadline
    lagUsed,      \* MASTER: ticks spent past the deadline without having stepped down
    sAge,         \* ticks (of c's running clock) since the pending statement was sent
    obs, obsOk, obsWait,
    lk,           \* the holder's session lock held by c's term session
    wakeUp,       \* c -> the kinds of wake-up (notification, lock grant) on their way to c
    paused,       \* process paused: clock and actions stopped
    guard,        \* c's guarded user transaction holds the row's shared lock
    pauseLeft, killLeft, restartLeft, jumpLeft,
    adminDone,    \* history: an operator deleted the row
    jumped,       \* history: the server clock stepped forward
    maxToken,     \* history: highest token ever given to a MASTER
    orderOk,      \* history: every new MASTER's token exceeded all earlier ones
    staleWriteOk  \* history: no guarded write of a stale term committed

cvars == <<role, phase, ok, att, token, dlRem, lagUsed, sAge, obs, obsOk, obsWait, lk, paused, guard>>
budgets == <<pauseLeft, killLeft, restartLeft, jumpLeft>>
hist == <<adminDone, jumped, maxToken, orderOk, staleWriteOk>>
vars == <<now, row, nextTake, cvars, wakeUp, budgets, hist>>
(* The VIEW leaves out what no action reads, so merging on it is exact:    *)
(* `now', the wake-ups on their way to a STOPPED process (it never acts     *)
(* again), and, but under MUT_WAKE_DECIDES, the kind of a wake-up (a woken  *)
(* follower reads the row whatever woke it): only whether one is on its way. *)
WakeSeen(c) == IF role[c] = STOPPED \/ wakeUp[c] = {} THEN {}
               ELSE IF MUT_WAKE_DECIDES THEN wakeUp[c] ELSE WakeKinds
View == <<row, nextTake, cvars, [c \in Cands |-> WakeSeen(c)], budgets, hist>>
Symm == Permutations(Cands)

SAgeCap == Max(DMax, 1)
Masters == {c \in Cands : role[c] = MASTER}
LockHeld(k) == \E c \in Cands : lk[c] = k
(* InnoDB: a guard's SELECT ... FOR SHARE holds a shared lock on the row's  *)
(* index record until its transaction ends; every statement that writes    *)
(* the row needs an exclusive lock on it and waits.  A statement waiting   *)
(* for the lock is applied when it is granted, which the model represents  *)
(* by sending it then.                                                     *)
SLocked == ~MUT_GUARD_NO_LOCK /\ \E c \in Cands : guard[c]
Released == [row EXCEPT !.holder = 0, !.exp = 0]
AllStale == [d \in Cands |-> FALSE]   \* any write changes the version: every observation is stale

(* Wake-ups.  An event on a channel in WakeUps sends a wake-up of kind k to *)
(* every process still running but those in `from' (the process whose      *)
(* event it is): a superset of the listeners, and of the followers waiting  *)
(* on that lock.  base is the rest of wakeUp'.  Channel                     *)
(* "notify": the commit of a release ("gone") or of a take ("taken"),       *)
(* NOTIFY in the same transaction (delivered at commit, never before).      *)
(* Channel "lock": a holder's session lock is freed ("gone"): let go at a    *)
(* step-down, or its session ended.  No one waits on the lock of an attempt *)
(* that changed nothing (GHOST).                                            *)
SendWake(base, chs, k, from) ==
    wakeUp' = IF chs \cap WakeUps # {}
                THEN [d \in Cands |-> IF role[d] # STOPPED /\ d \notin from THEN base[d] \cup {k}
                                                                        ELSE base[d]]
                ELSE base
Wake(c, chs) == SendWake(wakeUp, chs, "gone", {c})
LockChs(c) == IF lk[c] \in Takes THEN {"lock"} ELSE {}

TypeOK ==
    /\ now \in Nat
    /\ row \in Rows /\ nextTake \in 1..(MaxTakes + 1)
    /\ role \in [Cands -> Roles] /\ phase \in [Cands -> Phases] /\ ok \in [Cands -> BOOLEAN]
    /\ att \in [Cands -> 0..GHOST] /\ token \in [Cands -> 0..MaxTakes]
    /\ dlRem \in [Cands -> 0..DMax] /\ lagUsed \in [Cands -> 0..Lag]
    /\ sAge \in [Cands -> 0..SAgeCap]
    /\ obs \in [Cands -> ObsKinds] /\ obsOk \in [Cands -> BOOLEAN] /\ obsWait \in [Cands -> 0..WMin]
    /\ lk \in [Cands -> 0..GHOST] /\ wakeUp \in [Cands -> SUBSET WakeKinds]
    /\ paused \in [Cands -> BOOLEAN] /\ guard \in [Cands -> BOOLEAN]
    /\ pauseLeft \in 0..MaxPause /\ killLeft \in 0..MaxKills
    /\ restartLeft \in 0..MaxRestarts /\ jumpLeft \in 0..MaxJump
    /\ adminDone \in BOOLEAN /\ jumped \in BOOLEAN /\ maxToken \in 0..MaxTakes
    /\ orderOk \in BOOLEAN /\ staleWriteOk \in BOOLEAN

Init ==
    /\ now = 0 /\ row = NoRow /\ nextTake = 1
    /\ role = [c \in Cands |-> FOLLOWER] /\ phase = [c \in Cands |-> "idle"]
    /\ ok = [c \in Cands |-> FALSE] /\ att = [c \in Cands |-> 0] /\ token = [c \in Cands |-> 0]
    /\ dlRem = [c \in Cands |-> 0] /\ lagUsed = [c \in Cands |-> 0] /\ sAge = [c \in Cands |-> 0]
    /\ obs = [c \in Cands |-> "none"] /\ obsOk = [c \in Cands |-> FALSE]
    /\ obsWait = [c \in Cands |-> 0] /\ lk = [c \in Cands |-> 0] /\ wakeUp = [c \in Cands |-> {}]
    /\ paused = [c \in Cands |-> FALSE] /\ guard = [c \in Cands |-> FALSE]
    /\ pauseLeft = MaxPause /\ killLeft = MaxKills /\ restartLeft = MaxRestarts /\ jumpLeft = MaxJump
    /\ adminDone = FALSE /\ jumped = FALSE /\ maxToken = 0 /\ orderOk = TRUE /\ staleWriteOk = TRUE

(* c stops being CANDIDATE/MASTER: its pending statement is forgotten, its *)
(* named lock released (RELEASE_LOCK, or the session closed).  token[c] is *)
(* kept for guarded writes.  att' is set by the caller.                    *)
Leave(c, r) ==
    /\ role' = [role EXCEPT ![c] = r]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ ok' = [ok EXCEPT ![c] = FALSE]
    /\ dlRem' = [dlRem EXCEPT ![c] = 0]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ lk' = [lk EXCEPT ![c] = 0]

(* The release: UPDATE ... SET holder = '', version = version + 1,          *)
(* expires_at = UTC_TIMESTAMP(6) WHERE name = ? AND holder = ? AND epoch = ? *)
(* (take number k).  Best effort: it may fail or be lost (second disjunct). *)
(* It waits for a guard's shared lock; a release that waits is modelled as  *)
(* lost (its later application could only free a row whose term has ended). *)
(* chs: the wake-ups the caller's step sends anyway (a lock it frees); a    *)
(* release that commits notifies.                                            *)
ReleaseOrNotFrom(c, k, base, chs) ==
    \/ /\ row.ex /\ row.holder = k /\ k # 0 /\ ~SLocked
       /\ row' = Released /\ obsOk' = AllStale
       /\ Wake(c, chs \cup {"notify"})
    \/ /\ UNCHANGED row /\ obsOk' = base
       /\ Wake(c, chs)
ReleaseOrNot(c, k, chs) == ReleaseOrNotFrom(c, k, obsOk, chs)

Unchanged_obs == UNCHANGED <<obs, obsWait>>

-----------------------------------------------------------------------------
(*************************** Follower actions ******************************)

(* FOLLOWER reads the row: SELECT holder, candidate, epoch, version, ttl_us  *)
(* FROM lease WHERE name = ?.  Absent or released: free to take at once.    *)
(* Held: remember (holder, version) and start the wait of TTL*(1+rho) from  *)
(* the reply's arrival, unless this very (holder, version) is already being *)
(* waited on (the earlier wait is kept).  This is also what a follower does *)
(* when its wait for a wake-up times out (poll), and, where WakeUps is {},  *)
(* when it is woken (Woken, below, makes the wake-up explicit).             *)
RowFree == ~row.ex \/ row.holder = 0
ReadIsNew(c) == ~(obs[c] = (IF RowFree THEN "free" ELSE "held") /\ obsOk[c])
ReadRow(c) ==
    /\ obs' = [obs EXCEPT ![c] = IF RowFree THEN "free" ELSE "held"]
    /\ obsWait' = [obsWait EXCEPT ![c] = IF RowFree THEN 0 ELSE WMin]
    /\ obsOk' = [obsOk EXCEPT ![c] = TRUE]
Observe(c) ==
    /\ role[c] = FOLLOWER /\ ~paused[c] /\ att[c] = 0 /\ ReadIsNew(c)
    /\ ReadRow(c)
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge, lk>>
    /\ UNCHANGED <<paused, guard, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* A follower whose take had an unknown outcome reads the row.  If the row  *)
(* shows that attempt's holder token, the take was applied: the follower    *)
(* releases it (it never leads on a take it did not see succeed).           *)
(* Either way the orphan is resolved.                                       *)
OrphanMatches(c) ==
    IF MUT_HOLDER_IS_ID THEN row.ex /\ row.holder # 0 /\ row.cand = Id(c)
                        ELSE row.ex /\ row.holder = att[c]
ResolveOrphan(c) ==
    /\ role[c] = FOLLOWER /\ ~paused[c] /\ att[c] # 0
    /\ ~(OrphanMatches(c) /\ SLocked)     \* the release waits for a guard's shared lock
    /\ IF OrphanMatches(c)
         THEN /\ row' = Released /\ obsOk' = AllStale /\ Wake(c, {"notify"})
         ELSE UNCHANGED <<row, obsOk, wakeUp>>
    /\ att' = [att EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, nextTake, role, phase, ok, token, dlRem, lagUsed, sAge, lk>>
    /\ UNCHANGED <<obs, obsWait, paused, guard>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* The take, sent at the current instant (recorded: sAge = 0) after taking  *)
(* the session lock of a fresh holder token on the same session (MariaDB:   *)
(* GET_LOCK('leasehold/<h>', 0); PostgreSQL: pg_try_advisory_lock).         *)
(* `success' is whether the statement changes the row.  Success: the row    *)
(* gets the next take number (holder and epoch), candidate id, expires_at = *)
(* now + TTL, and its commit notifies.  wbase: wakeUp' before that.         *)
SendTakeFrom(c, success, wbase) ==
    /\ role' = [role EXCEPT ![c] = CANDIDATE]
    /\ phase' = [phase EXCEPT ![c] = "take"]
    /\ ok' = [ok EXCEPT ![c] = success]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ att' = [att EXCEPT ![c] = IF success THEN nextTake ELSE GHOST]
    /\ lk' = [lk EXCEPT ![c] = IF success THEN nextTake ELSE GHOST]
    /\ obs' = [obs EXCEPT ![c] = "none"]
    /\ obsWait' = [obsWait EXCEPT ![c] = 0]
    /\ IF success
         THEN /\ row' = [ex |-> TRUE, holder |-> nextTake, cand |-> Id(c), exp |-> TTL]
              /\ nextTake' = nextTake + 1
              /\ obsOk' = AllStale
         ELSE /\ UNCHANGED <<row, nextTake>>
              /\ obsOk' = [obsOk EXCEPT ![c] = FALSE]
    /\ SendWake(wbase, IF success THEN {"notify"} ELSE {}, "taken", {c})
    /\ UNCHANGED <<now, token, dlRem, lagUsed, paused, guard>> /\ UNCHANGED budgets /\ UNCHANGED hist
SendTake(c, success) == SendTakeFrom(c, success, wakeUp)

TakeEnabled(c) ==
    /\ role[c] = FOLLOWER /\ ~paused[c] /\ att[c] = 0 /\ nextTake <= MaxTakes /\ ~SLocked

(* Real protocol.  The client sends the take when its last read showed the  *)
(* row free, or held with the same (holder, version) for TTL*(1+rho) on its *)
(* own clock.  Absent: INSERT (fails on the duplicate key).  Otherwise:     *)
(* UPDATE ... WHERE name = ? AND holder = ? AND version = ?                 *)
(*            AND (holder = '' OR expires_at <= UTC_TIMESTAMP(6)).          *)
Take(c) ==
    /\ TakeEnabled(c)
    /\ \/ obs[c] = "free"
       \/ obs[c] = "held" /\ obsWait[c] = 0
    /\ SendTake(c, obsOk[c] /\ (obs[c] = "free" \/ row.exp = 0))

(* MUT_TAKE_ON_LOCK: GET_LOCK on the holder's lock returned 1 (its session *)
(* ended); the woken follower reads the row and takes it at once.          *)
TakeOnWake(c) ==
    /\ MUT_TAKE_ON_LOCK /\ TakeEnabled(c)
    /\ row.ex /\ row.holder # 0 /\ ~LockHeld(row.holder)
    /\ SendTake(c, TRUE)

(* MUT_SERVER_CLOCK_ONLY: the read shows expires_at <= UTC_TIMESTAMP(6) and  *)
(* the follower takes at once (the issue's baseline: expiry decided by the  *)
(* server clock alone).                                                     *)
TakeOnServerExpiry(c) ==
    /\ MUT_SERVER_CLOCK_ONLY /\ TakeEnabled(c)
    /\ row.ex /\ row.holder # 0 /\ row.exp = 0
    /\ SendTake(c, TRUE)

(* A wake-up of kind k reaches a follower (PostgreSQL: a notification, or  *)
(* the pg_advisory_lock it waits in returns; MariaDB: GET_LOCK returns 1).  *)
(* It may come late (the row has changed since), twice (another copy stays  *)
(* on its way: `again'), or never (LoseWakeUp).  The follower reads the     *)
(* row, and the row decides: Take needs what it always needs.  (A read that *)
(* shows what the follower already knows changes nothing.)                  *)
(* MUT_WAKE_DECIDES: woken by "gone", the follower takes the row at once,   *)
(* whatever the row shows (it trusts the wake-up to say the holder is      *)
(* gone).                                                                   *)
Woken(c) ==
    /\ role[c] = FOLLOWER /\ ~paused[c] /\ att[c] = 0
    /\ \E k \in wakeUp[c] :
         IF MUT_WAKE_DECIDES /\ k = "gone" /\ TakeEnabled(c) /\ ~RowFree
           THEN SendTakeFrom(c, TRUE, [wakeUp EXCEPT ![c] = @ \ {k}])
           ELSE /\ \E again \in BOOLEAN :
                     wakeUp' = [wakeUp EXCEPT ![c] = IF again THEN @ ELSE @ \ {k}]
                /\ IF ReadIsNew(c) THEN ReadRow(c) ELSE UNCHANGED <<obs, obsOk, obsWait>>
                /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
                /\ UNCHANGED <<lk, paused, guard>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* A wake-up is lost (a notification dropped with its connection, a lock    *)
(* wait that ends in an error, PgBouncer in transaction mode: no wake-up).  *)
LoseWakeUp(c) ==
    /\ \E k \in wakeUp[c] : wakeUp' = [wakeUp EXCEPT ![c] = @ \ {k}]
    /\ UNCHANGED <<now, row, nextTake, cvars>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* The take's reply arrives.  One row changed and the deadline (from the   *)
(* take's send time) not yet passed: MASTER, token = the new epoch.  One   *)
(* row changed but too late: release it and stay FOLLOWER.  Nothing changed: *)
(* FOLLOWER.                                                                *)
RecvTake(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "take" /\ ~paused[c]
    /\ \E d \in DRange :
         LET dl == Max(0, d - sAge[c]) IN
         IF ok[c] /\ (dl > 0 \/ MUT_NO_LATE_WIN_CHECK)
           THEN /\ role' = [role EXCEPT ![c] = MASTER]
                /\ phase' = [phase EXCEPT ![c] = "idle"]
                /\ ok' = [ok EXCEPT ![c] = FALSE]
                /\ token' = [token EXCEPT ![c] = att[c]]
                /\ att' = [att EXCEPT ![c] = 0]
                /\ dlRem' = [dlRem EXCEPT ![c] = dl]
                /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
                /\ sAge' = [sAge EXCEPT ![c] = 0]
                /\ orderOk' = (orderOk /\ att[c] > maxToken)
                /\ maxToken' = Max(maxToken, att[c])
                /\ UNCHANGED <<row, obsOk, lk, wakeUp>>
           ELSE /\ Leave(c, FOLLOWER)
                /\ att' = [att EXCEPT ![c] = 0]
                /\ IF ok[c] THEN ReleaseOrNot(c, att[c], LockChs(c))
                            ELSE UNCHANGED <<row, obsOk, wakeUp>>
                /\ UNCHANGED <<token, orderOk, maxToken>>
    /\ UNCHANGED <<now, nextTake, obs, obsWait, paused, guard>> /\ UNCHANGED budgets
    /\ UNCHANGED <<adminDone, jumped, staleWriteOk>>

(* The take's reply is lost or times out (also: its session ended).  The   *)
(* client closes the session (the session lock goes with it) and becomes    *)
(* FOLLOWER; the attempt stays an orphan until the next read.               *)
LoseTakeReply(c) ==
    /\ role[c] = CANDIDATE /\ phase[c] = "take" /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ Wake(c, LockChs(c))
    /\ UNCHANGED <<att, token, row, obsOk>>
    /\ UNCHANGED <<now, nextTake, obs, obsWait, paused, guard>> /\ UNCHANGED budgets /\ UNCHANGED hist

-----------------------------------------------------------------------------
(**************************** MASTER actions *******************************)

(* Renewal on the term session, sent at the current instant:               *)
(* UPDATE ... SET version = version + 1, expires_at = UTC_TIMESTAMP(6) + TTL *)
(* WHERE name = ? AND holder = ? AND epoch = ?.                             *)
SendRenew(c) ==
    /\ role[c] = MASTER /\ phase[c] = "idle" /\ ~paused[c] /\ lk[c] # 0 /\ ~SLocked
    /\ IF row.ex /\ row.holder = token[c]
         THEN /\ row' = [row EXCEPT !.exp = TTL]
              /\ obsOk' = AllStale
              /\ ok' = [ok EXCEPT ![c] = TRUE]
         ELSE /\ UNCHANGED <<row, obsOk>>
              /\ ok' = [ok EXCEPT ![c] = FALSE]
    /\ phase' = [phase EXCEPT ![c] = "renew"]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, nextTake, role, att, token, dlRem, lagUsed, lk, paused, guard, wakeUp>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* Extending the deadline to s + TTL*(1-rho) - Margin, s `age' ticks ago.   *)
Confirm(c, age) ==
    \E d \in DRange :
        /\ dlRem' = [dlRem EXCEPT ![c] = Max(dlRem[c], Max(0, d - age))]
        /\ lagUsed' = [lagUsed EXCEPT ![c] = IF dlRem'[c] > 0 THEN 0 ELSE lagUsed[c]]

(* The renewal's reply (the commit's OK) arrives.  One row changed: the     *)
(* renewal is confirmed and the deadline counts from its SEND time.  No     *)
(* row: the row was taken (KEY_TAKEN) or deleted (KEY_DELETED): step down,  *)
(* no release (the row is not ours).                                        *)
RecvRenew(c) ==
    /\ role[c] = MASTER /\ phase[c] = "renew" /\ ~paused[c]
    /\ IF ok[c]
         THEN /\ Confirm(c, IF MUT_RECEIVE_TIME THEN 0 ELSE sAge[c])
              /\ phase' = [phase EXCEPT ![c] = "idle"]
              /\ ok' = [ok EXCEPT ![c] = FALSE]
              /\ sAge' = [sAge EXCEPT ![c] = 0]
              /\ UNCHANGED <<role, lk, wakeUp>>
         ELSE /\ Leave(c, FOLLOWER) /\ Wake(c, LockChs(c))
    /\ UNCHANGED <<now, row, nextTake, att, token, obsOk, paused, guard>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* The renewal's reply is lost or times out: outcome unknown, so the       *)
(* deadline is NOT extended; the client closes the term session, which     *)
(* ends the term (STORE_UNAVAILABLE), and releases the row on a fresh      *)
(* connection, best effort.                                                 *)
LoseRenewReply(c) ==
    /\ role[c] = MASTER /\ phase[c] = "renew" /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ ReleaseOrNot(c, token[c], LockChs(c))
    /\ UNCHANGED <<now, nextTake, att, token, paused, guard>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* The term session has ended (KILL, server restart): the MASTER finds out  *)
(* on its next statement, steps down (STORE_UNAVAILABLE) and releases the   *)
(* row on a fresh connection, best effort.                                  *)
SessionLost(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ lk[c] = 0
    /\ Leave(c, FOLLOWER)
    /\ ReleaseOrNot(c, token[c], LockChs(c))
    /\ UNCHANGED <<now, nextTake, att, token, paused, guard>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* The local clock reached the deadline (LEASE_EXPIRED_LOCALLY); the action *)
(* may lag it by Lag (see Tick).  The row is released, best effort.         *)
DeadlineStepDown(c) ==
    /\ role[c] = MASTER /\ ~paused[c] /\ dlRem[c] = 0
    /\ Leave(c, FOLLOWER)
    /\ ReleaseOrNot(c, token[c], LockChs(c))
    /\ UNCHANGED <<now, nextTake, att, token, paused, guard>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* resign(): the role changes first, then the release, then the session    *)
(* lock is let go (RELEASE_LOCK / pg_advisory_unlock).                      *)
Resign(c) ==
    /\ role[c] = MASTER /\ ~paused[c]
    /\ Leave(c, FOLLOWER)
    /\ ReleaseOrNot(c, token[c], LockChs(c))
    /\ UNCHANGED <<now, nextTake, att, token, paused, guard>>
    /\ Unchanged_obs /\ UNCHANGED budgets /\ UNCHANGED hist

(* close(): the same, final; a CANDIDATE releases its attempt's row if the  *)
(* take was applied.                                                        *)
Close(c) ==
    /\ role[c] \in {FOLLOWER, CANDIDATE, MASTER} /\ ~paused[c]
    /\ Leave(c, STOPPED)
    /\ att' = [att EXCEPT ![c] = 0]
    /\ ReleaseOrNotFrom(c, IF role[c] = MASTER THEN token[c] ELSE IF att[c] = GHOST THEN 0 ELSE att[c],
                        [obsOk EXCEPT ![c] = FALSE], LockChs(c))
    /\ obs' = [obs EXCEPT ![c] = "none"]
    /\ obsWait' = [obsWait EXCEPT ![c] = 0]
    /\ UNCHANGED <<now, nextTake, token, paused, guard>>
    /\ UNCHANGED budgets /\ UNCHANGED hist

(* Crash: the process is gone; its session (and session lock) lives on    *)
(* until the server notices (SessionEnds); the row is left to the         *)
(* followers' waits.                                                        *)
Crash(c) ==
    /\ AllowCrash /\ role[c] # STOPPED
    /\ role' = [role EXCEPT ![c] = STOPPED]
    /\ phase' = [phase EXCEPT ![c] = "idle"]
    /\ ok' = [ok EXCEPT ![c] = FALSE]
    /\ att' = [att EXCEPT ![c] = 0]
    /\ dlRem' = [dlRem EXCEPT ![c] = 0]
    /\ lagUsed' = [lagUsed EXCEPT ![c] = 0]
    /\ sAge' = [sAge EXCEPT ![c] = 0]
    /\ obs' = [obs EXCEPT ![c] = "none"]
    /\ obsOk' = [obsOk EXCEPT ![c] = FALSE]
    /\ obsWait' = [obsWait EXCEPT ![c] = 0]
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<now, row, nextTake, token, lk, guard, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* The server ends a crashed client's session (a TCP reset, wait_timeout,   *)
(* TCP keepalives): its session lock is freed.                              *)
SessionEnds(c) ==
    /\ role[c] = STOPPED /\ lk[c] # 0
    /\ lk' = [lk EXCEPT ![c] = 0]
    /\ Wake(c, LockChs(c))
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, paused, guard>> /\ UNCHANGED budgets /\ UNCHANGED hist

Pause(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ pauseLeft > 0
    /\ paused' = [paused EXCEPT ![c] = TRUE]
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, lk, guard, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

Resume(c) ==
    /\ paused[c]
    /\ paused' = [paused EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, lk, guard, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

-----------------------------------------------------------------------------
(************************* The guard (user writes) **************************)

(* Inside the user's transaction: SELECT epoch, holder FROM lease WHERE     *)
(* name = ? FOR SHARE returns this term's (epoch, holder): the shared lock  *)
(* is now held until COMMIT/ROLLBACK.  Any process holding a token may try, *)
(* also one that has stepped down (its write may be late).                  *)
GuardPasses(c) ==
    IF MUT_FENCE_BY_HOLDER THEN row.ex /\ row.cand = Id(c)
                           ELSE row.ex /\ row.holder = token[c]
GuardBegin(c) ==
    /\ role[c] # STOPPED /\ ~paused[c] /\ token[c] # 0 /\ ~guard[c] /\ GuardPasses(c)
    /\ guard' = [guard EXCEPT ![c] = TRUE]
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, lk, paused, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

(* The user's writes and COMMIT: stale if a newer term has been taken.      *)
GuardCommit(c) ==
    /\ guard[c] /\ ~paused[c]
    /\ guard' = [guard EXCEPT ![c] = FALSE]
    /\ staleWriteOk' = (staleWriteOk /\ token[c] = nextTake - 1)
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, lk, paused, wakeUp>> /\ UNCHANGED budgets
    /\ UNCHANGED <<adminDone, jumped, maxToken, orderOk>>

(* ROLLBACK (by the user, a lock-wait timeout, a deadlock, a lost connection). *)
GuardAbort(c) ==
    /\ guard[c]
    /\ guard' = [guard EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, lk, paused, wakeUp>> /\ UNCHANGED budgets /\ UNCHANGED hist

-----------------------------------------------------------------------------
(************************** Server / environment ****************************)

(* One tick of real time.  The server clock advances (exp counts down); a  *)
(* MASTER past its deadline must step down within Lag ticks; paused         *)
(* processes' clocks are frozen.                                            *)
Tick ==
    /\ \A c \in Masters : paused[c] \/ dlRem[c] > 0 \/ lagUsed[c] < Lag
    /\ LET np == Cardinality({c \in Cands : paused[c]}) IN
         /\ np <= pauseLeft
         /\ pauseLeft' = pauseLeft - np
    /\ now' = now + 1
    /\ row' = [row EXCEPT !.exp = Max(0, row.exp - 1)]
    /\ dlRem' = [c \in Cands |-> IF ~paused[c] /\ dlRem[c] > 0 THEN dlRem[c] - 1 ELSE dlRem[c]]
    /\ lagUsed' = [c \in Cands |-> IF ~paused[c] /\ role[c] = MASTER /\ dlRem[c] = 0
                                   THEN lagUsed[c] + 1 ELSE lagUsed[c]]
    /\ sAge' = [c \in Cands |-> IF ~paused[c] /\ phase[c] # "idle" THEN Min(sAge[c] + 1, SAgeCap)
                                ELSE sAge[c]]
    /\ obsWait' = [c \in Cands |-> IF ~paused[c] THEN Max(0, obsWait[c] - 1) ELSE obsWait[c]]
    /\ UNCHANGED <<nextTake, role, phase, ok, att, token, obs, obsOk, lk, paused, guard, wakeUp>>
    /\ UNCHANGED <<killLeft, restartLeft, jumpLeft>> /\ UNCHANGED hist

(* The server's clock steps forward by j (NTP step, DST with a local-time   *)
(* DATETIME, a VM restored): the row expires j ticks early by server time.  *)
ClockJump ==
    /\ jumpLeft > 0 /\ row.ex /\ row.exp > 0
    /\ \E j \in 1..Min(jumpLeft, row.exp) :
         /\ row' = [row EXCEPT !.exp = row.exp - j]
         /\ jumpLeft' = jumpLeft - j
    /\ jumped' = TRUE
    /\ UNCHANGED <<now, nextTake, cvars, wakeUp, pauseLeft, killLeft, restartLeft>>
    /\ UNCHANGED <<adminDone, maxToken, orderOk, staleWriteOk>>

(* KILL <id> (pg_terminate_backend) of a live session holding a session    *)
(* lock: the lock is released, the row untouched.  (Killing a follower's    *)
(* session only makes it reconnect, which nothing observes; a wake-up it    *)
(* loses that way is LoseWakeUp.)                                           *)
Kill(c) ==
    /\ killLeft > 0 /\ lk[c] # 0
    /\ lk' = [lk EXCEPT ![c] = 0]
    /\ Wake(c, LockChs(c))
    /\ killLeft' = killLeft - 1
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, paused, guard>>
    /\ UNCHANGED <<pauseLeft, restartLeft, jumpLeft>> /\ UNCHANGED hist

(* The server restarts (durable commits): every session and session lock   *)
(* is lost, open user transactions roll back, committed rows are kept.     *)
(* Replies not yet sent are lost (LoseTakeReply / LoseRenewReply).  The     *)
(* followers' lock waits end (a wake-up); their notifications in flight    *)
(* may be lost (LoseWakeUp).                                                *)
Restart ==
    /\ restartLeft > 0
    /\ restartLeft' = restartLeft - 1
    /\ lk' = [c \in Cands |-> 0]
    /\ SendWake(wakeUp, IF \E c \in Cands : lk[c] \in Takes THEN {"lock"} ELSE {}, "gone", {})
    /\ guard' = [c \in Cands |-> FALSE]
    /\ UNCHANGED <<now, row, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsOk, obsWait, paused>>
    /\ UNCHANGED <<pauseLeft, killLeft, jumpLeft>> /\ UNCHANGED hist

(* An operator deletes the row (DELETE FROM lease WHERE name = ?).          *)
AdminDelete ==
    /\ AllowAdminDelete /\ ~adminDone /\ row.ex /\ ~SLocked
    /\ row' = NoRow /\ obsOk' = AllStale
    /\ adminDone' = TRUE
    /\ UNCHANGED <<now, nextTake, role, phase, ok, att, token, dlRem, lagUsed, sAge>>
    /\ UNCHANGED <<obs, obsWait, lk, paused, guard, wakeUp>> /\ UNCHANGED budgets
    /\ UNCHANGED <<jumped, maxToken, orderOk, staleWriteOk>>

Next ==
    \/ Tick \/ ClockJump \/ Restart \/ AdminDelete
    \/ \E c \in Cands :
         \/ Observe(c) \/ Woken(c) \/ LoseWakeUp(c) \/ ResolveOrphan(c)
         \/ Take(c) \/ TakeOnWake(c) \/ TakeOnServerExpiry(c)
         \/ RecvTake(c) \/ LoseTakeReply(c)
         \/ SendRenew(c) \/ RecvRenew(c) \/ LoseRenewReply(c)
         \/ SessionLost(c) \/ DeadlineStepDown(c) \/ Resign(c) \/ Close(c)
         \/ Crash(c) \/ SessionEnds(c) \/ Kill(c) \/ Pause(c) \/ Resume(c)
         \/ GuardBegin(c) \/ GuardCommit(c) \/ GuardAbort(c)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(******************************** Properties ********************************)

(* At most one process in role MASTER (until its step-down has run; this is *)
(* what isLeader() and the callbacks expose).  Not claimed after an         *)
(* operator deleted the row.                                                 *)
NoOverlapInv == ~adminDone => Cardinality(Masters) <= 1

(* The literal reading: at most one MASTER whose local deadline has not passed. *)
NoOverlapClockInv == ~adminDone => Cardinality({c \in Masters : dlRem[c] > 0}) <= 1

(* A MASTER before its deadline finds the row with its holder and epoch;    *)
(* the row is unexpired by the server clock unless that clock stepped       *)
(* forward; and no follower could take it now: every follower whose read of *)
(* the row is still current is still waiting.                               *)
MasterOwnsKeyInv ==
    ~adminDone =>
        \A c \in Masters : dlRem[c] > 0 =>
            /\ row.ex /\ row.holder = token[c]
            /\ (~jumped => row.exp > 0)
            /\ \A d \in Cands : (obs[d] = "held" /\ obsOk[d]) => obsWait[d] > 0

(* Tokens increase from one MASTER to the next (not claimed after an        *)
(* operator deletion), and a guarded write of a stale term never commits    *)
(* (always claimed).                                                         *)
TokenOrderInv == orderOk
StaleWriteInv == staleWriteOk
FencingMonotonicInv == staleWriteOk /\ (~adminDone => orderOk)

(* ---- Non-vacuity (Sanity_SqlDeepRenewal.cfg): this MUST be violated. ---- *)
(* After a server restart and a killed session, the MASTER of a second      *)
(* incarnation of the row gets a renewal confirmed.                         *)
SanityNoDeepRenewal ==
    ~(\E c \in Masters : /\ token[c] >= 2 /\ phase[c] = "renew" /\ ok[c]
                         /\ restartLeft < MaxRestarts /\ killLeft < MaxKills)

(* ---- Non-vacuity: a MASTER exists in some reachable state. ---- *)
SanityNoMaster == Masters = {}
=============================================================================
