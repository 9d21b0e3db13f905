package dev.leasehold.jdbc;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.protocol.Transitions;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * <p>Parts: {@link #step} hands each input to the current role ({@link SqlFollower},
 * {@link SqlCandidate}, {@link SqlMaster}); {@link #moveTo} is the one place the role changes
 * and events are published; what all roles share (the leader seen, the largest epoch read, the
 * session and its woken lock, orphans, reachability) is here.
 *
 * <p>Not thread-safe: the runtime's event loop owns an instance.
 */
final class SqlMachine implements Machine {
  private static final Set<Cause> SAME_ROLE =
      EnumSet.of(Cause.LEADER_CHANGED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED);

  final SqlConfig config;
  final SqlEffects fx;
  final SqlFollower follower;
  final SqlCandidate candidate;
  final SqlMaster master;
  final Orphans orphans = new Orphans();

  private ElectorState role = ElectorState.FOLLOWER;
  // The role the listeners' view stands at; differs from role only while naming (see moveTo).
  private ElectorState told = ElectorState.FOLLOWER;
  /** naming: a MASTER whose renewal changed no row has stepped down and reads why (told is MASTER). */
  boolean naming;

  LeaderInfo leader;
  long maxEpoch;

  // The session of the last answer (0: none known), and the lock a wake-up left us holding on it.
  long session;
  HolderToken woken;
  // S5s in flight, by op: their success ends an orphan.
  private final Map<Long, HolderToken> releasing = new HashMap<>();

  long failures;
  private boolean unavailable;

  /** SqlMachine starts as a FOLLOWER that has not started; {@code random} draws tokens and jitter. */
  SqlMachine(SqlConfig config, RandomGenerator random) {
    this.config = Objects.requireNonNull(config, "config");
    this.fx = new SqlEffects(config, Objects.requireNonNull(random, "random"));
    this.follower = new SqlFollower(this);
    this.candidate = new SqlCandidate(this);
    this.master = new SqlMaster(this);
  }

  @Override
  public ElectorState role() {
    return role;
  }

  @Override
  public LeaderInfo leader() {
    return leader;
  }

  @Override
  public long deadline() {
    return role == ElectorState.MASTER ? master.deadline() : Long.MIN_VALUE;
  }

  @Override
  public long renewalSentAt() {
    return role == ElectorState.MASTER ? master.confirmedSentAt() : Long.MIN_VALUE;
  }

  @Override
  public long fencingToken() {
    return role == ElectorState.MASTER ? master.token() : 0;
  }

  @Override
  public long leaseId() {
    return role == ElectorState.MASTER ? master.holder().leaseId() : 0;
  }

  @Override
  public Object termDetail() {
    return role == ElectorState.MASTER
        ? new SqlTerm(config.table(), config.name(), master.holder(), master.token())
        : null;
  }

  /** isUnavailable is true between a STORE_UNAVAILABLE report and the next success. */
  boolean isUnavailable() {
    return unavailable;
  }

  @Override
  public List<Command> step(Input input, long now) {
    Objects.requireNonNull(input, "input");
    fx.begin();
    if (role == ElectorState.STOPPED) {
      // Calls in flight at close run their course; nothing they say changes anything now.
      return fx.commands();
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
    return fx.commands();
  }

  private void answered(SqlInput in, long now) {
    HolderToken released = releasing.remove(in.op());
    if (in instanceof SqlInput.Failed) {
      failures++;
      // The store has ended the session: the locks it held are gone.
      session = 0;
      woken = null;
      if (role == ElectorState.MASTER) {
        master.sessionFailed(now);
      } else if (!naming) {
        reportUnavailable(now);
      }
    } else {
      if (released != null) {
        orphans.remove(released);
      }
      long on = sessionOf(in);
      succeeded(on, now);
      if (role == ElectorState.MASTER && on != master.session()) {
        // The term session ended without a word (only a reconnecting driver or proxy does that).
        master.sessionFailed(now);
        return;
      }
    }
    current().on(in, now);
  }

  private SqlRole current() {
    return switch (role) {
      case FOLLOWER -> naming ? master : follower;
      case CANDIDATE -> candidate;
      case MASTER -> master;
      case STOPPED -> throw new IllegalStateException("STOPPED handles its inputs in step");
    };
  }

  // ---- the transition choke point ----

  /**
   * moveTo is the one place the role changes and the one place events are published.
   *
   * <p>An event's {@code from} is always {@code told}: the role the listeners' view stands at,
   * the {@code to} of the last event or where an internal move led (FOLLOWER ↔ CANDIDATE
   * publish nothing). It differs from the role only while naming: the role has left MASTER and
   * the listeners, told nothing yet, still see a MASTER. So events pair up by construction:
   * {@code told} becomes MASTER only by publishing ELECTED and leaves it only by publishing the
   * end of that term.
   *
   * <ul>
   *   <li>{@code cause} null: a move that publishes nothing: FOLLOWER ↔ CANDIDATE, or MASTER →
   *       FOLLOWER when naming begins.
   *   <li>LEADER_CHANGED and STORE_RECOVERED keep the role; so does STORE_UNAVAILABLE, except
   *       from MASTER, where it ends the term. Same-role events are held back while naming.
   *   <li>Any other cause moves the listeners from {@code told} to {@code to}.
   * </ul>
   *
   * <p>Both moves are checked against {@link Transitions}. Leaving a role cancels its timers.
   *
   * @return whether an event was published
   */
  boolean moveTo(ElectorState to, Cause cause, LeaderInfo who, long now) {
    boolean leavesMaster = told == ElectorState.MASTER && to != ElectorState.MASTER;
    if (cause != null && SAME_ROLE.contains(cause) && !(leavesMaster && cause == Cause.STORE_UNAVAILABLE)) {
      if (to != told) {
        throw new IllegalStateException(cause + " keeps the role " + told + ", but was asked to move to " + to);
      }
      if (naming) {
        return false;
      }
      fx.add(new Command.Publish(told, to, cause, who, now));
      return true;
    }
    ElectorState was = role;
    boolean internal =
        told == was
            && (was == ElectorState.FOLLOWER && to == ElectorState.CANDIDATE
                || was == ElectorState.CANDIDATE && to == ElectorState.FOLLOWER);
    boolean owed = was == ElectorState.MASTER && to == ElectorState.FOLLOWER && naming;
    if (cause == null && !internal && !owed) {
      throw new IllegalStateException(was + " -> " + to + " must be published (told " + told + ")");
    }
    if (cause != null) {
      check(told, to);
    }
    if (to != was) {
      check(was, to);
      if (was == ElectorState.FOLLOWER) {
        fx.cancelTimer(SqlTimer.POLL);
      } else if (was == ElectorState.MASTER) {
        fx.cancelTimer(SqlTimer.RENEW);
        fx.cancelTimer(SqlTimer.DEADLINE);
      }
      role = to;
    }
    if (cause == null) {
      if (internal) {
        told = to;
      }
      return false;
    }
    fx.add(new Command.Publish(told, to, cause, who, now));
    told = to;
    return true;
  }

  /** tell publishes a same-role event (see moveTo); false when it was held back. */
  boolean tell(Cause cause, LeaderInfo who, long now) {
    return moveTo(told, cause, who, now);
  }

  /** lose publishes the end of the term the listeners see, MASTER → FOLLOWER, for {@code cause}. */
  void lose(Cause cause, LeaderInfo successor, long now) {
    moveTo(ElectorState.FOLLOWER, cause, successor, now);
    if (cause == Cause.STORE_UNAVAILABLE) {
      unavailable = true;
    }
  }

  private static void check(ElectorState from, ElectorState to) {
    if (!Transitions.isLegal(from, to)) {
      throw new IllegalStateException("illegal transition " + from + " -> " + to);
    }
  }

  // ---- every role ----

  private void close(long now) {
    fx.cancelAllTimers();
    if (follower.awaiting()) {
      fx.add(new SqlCommand.EndWait());
    }
    if (role == ElectorState.MASTER) {
      master.releaseOnClose();
    } else if (role == ElectorState.CANDIDATE) {
      candidate.releaseOnClose();
    }
    for (Orphans.Orphan o : orphans.all()) {
      release(o.holder(), o.epoch());
    }
    if (woken != null) {
      unlock(woken);
      woken = null;
    }
    // A loss still owed to the listeners (naming) is ended by CLOSED: MASTER -> STOPPED.
    naming = false;
    moveTo(ElectorState.STOPPED, Cause.CLOSED, null, now);
    leader = null;
  }

  private void succeeded(long answeredOn, long now) {
    failures = 0;
    if (answeredOn != 0 && answeredOn != session) {
      // A new session: the old one, and the locks it held, are gone.
      if (session != 0) {
        woken = null;
      }
      session = answeredOn;
    }
    // While naming the event is held back; the next success after the loss reports it.
    if (unavailable && tell(Cause.STORE_RECOVERED, leader, now)) {
      unavailable = false;
    }
  }

  /** reportUnavailable publishes STORE_UNAVAILABLE once per outage. */
  void reportUnavailable(long now) {
    if (!unavailable && tell(Cause.STORE_UNAVAILABLE, leader, now)) {
      unavailable = true;
    }
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

  /** noteEpoch keeps the largest epoch read or taken, for the next insert's epoch. */
  void noteEpoch(long epoch) {
    maxEpoch = Math.max(maxEpoch, epoch);
  }

  /** ownToken tells whether {@code h} is one of this process's attempts or terms (then it names no leader). */
  boolean ownToken(HolderToken h) {
    return h != null
        && (orphans.contains(h)
            || role == ElectorState.MASTER && h.equals(master.holder())
            || role == ElectorState.CANDIDATE && h.equals(candidate.holder()));
  }

  /** info names the holder of {@code row} as a leader; null for a row no take of ours wrote (epoch ≤ 0). */
  static LeaderInfo info(LeaseRow row) {
    return row.epoch() > 0 ? new LeaderInfo(row.candidate(), row.epoch(), row.holder().leaseId()) : null;
  }

  private static long sessionOf(SqlInput in) {
    if (in instanceof SqlInput.RowRead r) {
      return r.session();
    } else if (in instanceof SqlInput.Locked l) {
      return l.session();
    } else if (in instanceof SqlInput.Woken w) {
      return w.session();
    } else if (in instanceof SqlInput.Unlocked u) {
      return u.session();
    } else if (in instanceof SqlInput.Taken t) {
      return t.session();
    } else if (in instanceof SqlInput.Renewed r) {
      return r.session();
    } else if (in instanceof SqlInput.Released r) {
      return r.session();
    }
    return 0;
  }
}
