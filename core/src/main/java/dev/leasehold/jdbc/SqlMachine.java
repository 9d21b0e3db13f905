package dev.leasehold.jdbc;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Reachability;
import dev.leasehold.runtime.RoleMachine;
import dev.leasehold.runtime.Roles;
import dev.leasehold.runtime.Transitions;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * SqlMachine is the MariaDB/MySQL protocol (PROTOCOL.md, section "SQL backend") as a pure state
 * machine: it takes an {@link Input} and the monotonic time and returns the {@link Command}s
 * the runtime carries out. It does no I/O, reads no clock and starts no thread.
 *
 * <p>In brief: the lease row is the truth. A FOLLOWER reads it (S1), waits in GET_LOCK on the
 * holder's named lock as its wake-up with the lock timeout as its poll, and takes the row
 * (S6 on a fresh holder token, then S2 or S3) when it is absent, released, or has shown one
 * (holder, version) for {@code ttl × (1 + ρ)} since a reply's arrival and is expired by the
 * server's clock too; being woken never allows a take by itself. A MASTER renews (S4) every
 * TTL/6 on the session that holds its lock, with its deadline counted from the send time of the
 * last renewal that changed the row, and steps down at the deadline, when a renewal changes no
 * row (S1 then names the cause), when any statement on its session fails (STORE_UNAVAILABLE),
 * and on resign(); it releases the row (S5) before its lock. Attempts whose outcome is unknown
 * become {@link Orphans}.
 *
 * <pre>
 *             may take                       take won in time
 *  FOLLOWER ───────────▶ CANDIDATE ──────────────────────────▶ MASTER
 *     ▲  ▲                   │                                   │ deadline, row gone or taken,
 *     │  └───────────────────┘ lost, failed, too late            │ session failed, resign()
 *     └──────────────────────────────────────────────────────────┘
 *  any state ── close() ──▶ STOPPED (terminal)
 * </pre>
 *
 * <p>Parts: {@link #apply} hands each input to the current role ({@link SqlFollower},
 * {@link SqlCandidate}, {@link SqlMaster}); the runtime's {@link Roles}, with the table {@link
 * Transitions#ELECTION}, is the one place the role changes and events are published, and reports
 * an outage at the first failure (any failure ends the session it ran on); what all roles share
 * (the largest epoch read, the session and its {@link WokenLock}, orphans) is here.
 *
 * <p>Not thread-safe: the runtime's event loop owns an instance.
 */
final class SqlMachine extends RoleMachine {
  final SqlConfig config;
  final SqlEffects fx;
  final Reachability reach;
  final Roles roles;
  final Orphans orphans = new Orphans();
  final WokenLock woken;
  private final SqlFollower follower;
  private final SqlCandidate candidate;
  private final SqlMaster master;

  private long maxEpoch;

  // The session of the last answer (0: none known).
  long session;
  // S5s in flight, by op: their success ends an orphan.
  private final Map<Long, HolderToken> releasing = new HashMap<>();

  /** SqlMachine starts as a FOLLOWER that has not started; {@code random} draws tokens and jitter. */
  SqlMachine(SqlConfig config, RandomGenerator random) {
    // Any failure ends the session it ran on (a MASTER's term with it): an outage at once.
    this(Objects.requireNonNull(config, "config"), new SqlEffects(config, Objects.requireNonNull(random, "random")),
        new Reachability(1));
  }

  private SqlMachine(SqlConfig config, SqlEffects fx, Reachability reach) {
    super(Transitions.ELECTION, fx, reach);
    this.config = config;
    this.fx = fx;
    this.reach = reach;
    this.roles = roles();
    this.woken = new WokenLock(fx);
    this.follower = new SqlFollower(this);
    this.candidate = new SqlCandidate(this);
    this.master = new SqlMaster(this);
  }

  /** deadline is the MASTER's local deadline: the send time of its last renewal that changed the row, plus its window. */
  /**
   * transferUnsupported: the row protocol keeps no queue of live candidates, and a follower
   * holds nothing a leader could hand the row to that outlives it.
   */
  @Override
  public String transferUnsupported() {
    return "the SQL row protocol keeps no queue of live candidates (PROTOCOL.md §10), so there is no live"
        + " candidate to hand the lease row to; resign() lets the next candidate take it";
  }

  @Override
  public long deadline() {
    return roles.role() == ElectorState.MASTER ? master.deadline() : Long.MIN_VALUE;
  }

  /** renewalSentAt is the send time of the MASTER's take or last renewal that changed the row. */
  @Override
  public long renewalSentAt() {
    return roles.role() == ElectorState.MASTER ? master.confirmedSentAt() : Long.MIN_VALUE;
  }

  /** isUnavailable is true between a STORE_UNAVAILABLE report and the next success. */
  boolean isUnavailable() {
    return reach.isUnavailable();
  }

  /** apply does the bookkeeping every answer needs, then hands the input to the current role. */
  @Override
  protected void apply(Input input, long now) {
    if (roles.role() == ElectorState.STOPPED) {
      // Calls in flight at close run their course; nothing they say changes anything now.
      return;
    }
    if (input instanceof Input.Close) {
      close(now);
    } else if (input instanceof Input.Start) {
      follower.start(now);
    } else if (input instanceof Input.Resign r) {
      current().resign(r.cause(), now);
    } else if (input instanceof Input.TimerFired t) {
      SqlTimer kind = fx.fired(t);
      if (kind != null) {
        current().onTimer(kind, now);
      }
    } else if (input instanceof SqlInput in && fx.answered(in.op())) {
      answered(in, now);
    }
  }

  private void answered(SqlInput in, long now) {
    HolderToken released = releasing.remove(in.op());
    if (in instanceof SqlInput.Failed) {
      // The store has ended the session: the locks it held are gone.
      session = 0;
      woken.sessionEnded();
      if (roles.role() == ElectorState.MASTER) {
        // The term's loss reports the outage: STORE_UNAVAILABLE leaves MASTER.
        reach.failed();
        master.sessionFailed(now);
      } else {
        roles.failed(now);
      }
    } else {
      if (released != null) {
        orphans.remove(released);
      }
      long on = in.session();
      succeeded(on, now);
      if (roles.role() == ElectorState.MASTER && on != master.session()) {
        // The term session ended without a word (only a reconnecting driver or proxy does that).
        master.sessionFailed(now);
        return;
      }
    }
    current().on(in, now);
  }

  private SqlRole current() {
    // The MASTER names its own loss.
    return roles.pick(follower, candidate, master, master);
  }

  /**
   * left is the hook {@link Roles} runs on every role left: a FOLLOWER's re-read timer goes; a
   * MASTER's renewal and deadline (RENEW, DEADLINE) never outlive the term.
   */
  @Override
  protected void left(ElectorState from, ElectorState to) {
    if (from == ElectorState.FOLLOWER) {
      fx.cancelTimer(SqlTimer.POLL);
    } else if (from == ElectorState.MASTER) {
      fx.cancelTimer(SqlTimer.RENEW);
      fx.cancelTimer(SqlTimer.DEADLINE);
    }
  }

  // ---- every role ----

  private void close(long now) {
    fx.cancelAllTimers();
    if (follower.awaiting()) {
      fx.add(new SqlCommand.EndWait());
    }
    if (roles.role() == ElectorState.MASTER) {
      master.releaseOnClose();
    } else if (roles.role() == ElectorState.CANDIDATE) {
      candidate.releaseOnClose();
    }
    for (Orphans.Orphan o : orphans.all()) {
      release(o.holder(), o.epoch());
    }
    woken.letGo();
    // A loss still owed to the listeners (naming) is ended by CLOSED: MASTER -> STOPPED.
    roles.moveTo(ElectorState.STOPPED, Cause.CLOSED, null, now);
  }

  private void succeeded(long answeredOn, long now) {
    if (answeredOn != 0 && answeredOn != session) {
      // A new session: the old one, and the locks it held, are gone.
      if (session != 0) {
        woken.sessionEnded();
      }
      session = answeredOn;
    }
    // While naming the event is held back; the next success after the loss reports it.
    roles.progressed(now);
  }

  /** release sends S5 for {@code (h, epoch)}; its success forgets the orphan {@code h}. */
  void release(HolderToken h, long epoch) {
    long op = fx.call(o -> new SqlCommand.Release(o, h, epoch));
    releasing.put(op, h);
  }

  /** unlock sends RELEASE_LOCK(L(h)). */
  void unlock(HolderToken h) {
    fx.call(o -> new SqlCommand.Unlock(o, h));
  }

  /** maxEpoch is the largest epoch read or taken. */
  long maxEpoch() {
    return maxEpoch;
  }

  /** noteEpoch keeps the largest epoch read or taken, for the next insert's epoch. */
  void noteEpoch(long epoch) {
    maxEpoch = Math.max(maxEpoch, epoch);
  }

  // ---- what the roles ask of each other ----

  /** take moves the FOLLOWER that may take {@code row} (null: none) to CANDIDATE and starts the take. */
  void take(LeaseRow row, long now) {
    candidate.begin(row, now);
  }

  /** lead makes the CANDIDATE whose take, sent at {@code sentAt}, won on {@code session} MASTER. */
  void lead(HolderToken h, long epoch, long session, long sentAt, long now) {
    master.begin(h, epoch, session, sentAt, now);
  }

  /** read has the FOLLOWER read the row now (unless a read or a wait is in flight). */
  void read() {
    follower.read();
  }

  /** retryRead has the FOLLOWER read the row again after the error backoff. */
  void retryRead(long now) {
    follower.retry(now);
  }

  /** followRow has the FOLLOWER act on a row a MASTER naming its loss read at {@code now}. */
  void followRow(LeaseRow row, long now) {
    follower.rowRead(row, now);
  }

  /** holdOff keeps this instance out of the election until {@code until}, or until another holder is seen. */
  void holdOff(long until) {
    follower.holdOff(until);
  }

  /** ownToken tells whether {@code h} is one of this process's attempts or terms (then it names no leader). */
  boolean ownToken(HolderToken h) {
    return h != null
        && (orphans.contains(h)
            || roles.role() == ElectorState.MASTER && h.equals(master.holder())
            || roles.role() == ElectorState.CANDIDATE && h.equals(candidate.holder()));
  }

  /** info names the holder of {@code row} as a leader; null for a row no take of ours wrote (epoch ≤ 0). */
  static LeaderInfo info(LeaseRow row) {
    return row.epoch() > 0 ? new LeaderInfo(row.candidate(), row.epoch(), row.holder().leaseId()) : null;
  }
}
