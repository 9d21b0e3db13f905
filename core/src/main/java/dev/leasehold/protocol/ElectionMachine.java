package dev.leasehold.protocol;

import dev.leasehold.Participant;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.ConfigurationErrors;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
import dev.leasehold.runtime.StoreCall;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * ElectionMachine is the Leasehold protocol as a pure state machine: it takes an
 * {@link Input} and the current monotonic time, changes its state, and returns the
 * {@link Command}s its driver must carry out. It does no I/O, reads no clock and starts no
 * thread, so a test or a simulation can drive it step by step.
 *
 * <p>The roles and their legal moves are in {@link Transitions}; PROTOCOL.md is the normative
 * description. In brief: a FOLLOWER reads and watches the key and becomes CANDIDATE when it
 * is absent; a CANDIDATE grants a lease and commits the compare-and-swap; a MASTER renews
 * (as late as leaves 2 s of its window, TTL/6 to TTL/2) and extends its local deadline only when a keep-alive ack is followed by a
 * linearizable read, sent after the ack, that shows the key still bound to its lease and
 * carries the ack's raft term; it steps down at the deadline or as soon as it learns the key
 * or lease is gone.
 *
 * <p>Parts. {@link #step} hands each input to the current role's handler ({@link Follower},
 * {@link Candidate}, {@link Master}; {@link Probing} while a MASTER that saw its key deleted
 * asks whether its lease went too); the {@link Lease} holds the lease, its renewal and its
 * deadline; {@link #moveTo} is the one place the role changes and events are published. What
 * every role shares (what is known of the key, the watch, the store's reachability) is here.
 *
 * <p>Not thread-safe: one thread (the driver's event loop) owns an instance.
 */
public final class ElectionMachine implements Machine {
  /** LASTING is how many failed calls without progress make an outage worth reporting. */
  static final int LASTING = 3;
  // Enough failures for the backoff to reach its maximum from any configured initial value.
  private static final int CONFIGURATION_FAILURES = 64;
  private static final Set<Cause> SAME_ROLE =
      EnumSet.of(Cause.LEADER_CHANGED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED);

  /** Phase is where a MASTER's step-down stands. */
  enum Phase {
    /** NONE: no loss is owed to the listeners. */
    NONE,
    /**
     * PROBING: the MASTER saw its key deleted and stepped down at once (the role is FOLLOWER),
     * and asks whether its lease went too, to name the cause; the listeners have not been told
     * yet and still see a MASTER.
     */
    PROBING
  }

  final ProtocolConfig config;
  final Effects fx;
  final Lease lease;
  final Follower follower;
  final Candidate candidate;
  final Master master;
  final Probing probing;
  final Queue queue = new Queue();

  private ElectorState role = ElectorState.FOLLOWER;
  // The role the listeners' view stands at; see moveTo.
  private ElectorState told = ElectorState.FOLLOWER;
  Phase phase = Phase.NONE;

  // What this instance knows of the key.
  LeaderInfo leader;
  boolean keyAbsent;
  long knownRevision;
  // The last lease this instance gave up; until etcd deletes its key, that key names no leader.
  long abandonedLeaseId;
  // The token of the last term this instance handed over or gave up: a key bound to its lease
  // at that revision is the old term's, not a handover to it (PROTOCOL.md §4.5).
  long givenUpToken;

  final KeyWatch watch = new KeyWatch(this);

  // Reachability (PROTOCOL.md §9): failed calls since the elector last made progress, whether
  // STORE_UNAVAILABLE was published, and the reason of the failed call this step handles.
  long failures;
  private boolean unavailable;
  private String failure;

  /** ElectionMachine starts as a FOLLOWER that has not started; {@code random} draws jitter. */
  public ElectionMachine(ProtocolConfig config, RandomGenerator random) {
    this.config = Objects.requireNonNull(config, "config");
    this.fx = new Effects(config, Objects.requireNonNull(random, "random"));
    this.lease = new Lease(config, fx);
    this.follower = new Follower(this);
    this.candidate = new Candidate(this);
    this.master = new Master(this);
    this.probing = new Probing(this);
  }

  /** role is the current role. */
  @Override
  public ElectorState role() {
    return role;
  }

  /** leader is the leader this instance last saw (itself when MASTER), or null. */
  @Override
  public LeaderInfo leader() {
    return leader;
  }

  /**
   * deadline is the local time (monotonic clock) until which etcd surely keeps the held lease:
   * the MASTER's deadline; for a follower, its standby lease's; Long.MIN_VALUE with no lease.
   */
  @Override
  public long deadline() {
    return lease.deadline();
  }

  /** fencingToken is the MASTER's token, or 0 when not MASTER. */
  @Override
  public long fencingToken() {
    return role == ElectorState.MASTER ? master.token() : 0;
  }

  /** leaseId is the lease this instance holds (standby, CANDIDATE or MASTER), or 0. */
  @Override
  public long leaseId() {
    return lease.id();
  }

  /** renewalSentAt is the send time of the held lease's last confirmed renewal (or grant). */
  @Override
  public long renewalSentAt() {
    return lease.renewalSentAt();
  }

  /** grantedTtlSeconds is the TTL etcd granted the current lease, or 0. */
  public long grantedTtlSeconds() {
    return lease.ttlSeconds();
  }

  /** isUnavailable is true between a STORE_UNAVAILABLE report and the next progress. */
  public boolean isUnavailable() {
    return unavailable;
  }

  /**
   * step applies one input at monotonic time {@code now} (nanoseconds) and returns the
   * commands to carry out, in order.
   */
  @Override
  public List<Command> step(Input input, long now) {
    Objects.requireNonNull(input, "input");
    fx.begin();
    failure = input instanceof Input.Failed f ? f.reason() : null;
    if (role == ElectorState.STOPPED) {
      stopped(input);
    } else if (input instanceof Input.Close) {
      close(now);
    } else if (input instanceof EtcdInput.WatchFailed f) {
      watch.failed(f, now);
    } else if (input instanceof EtcdInput.WatchEnlisted e) {
      if (watch.from(e.watchId())) {
        queue.enlisted(e.participant());
      }
    } else if (input instanceof EtcdInput.WatchWithdrawn w) {
      if (watch.from(w.watchId())) {
        queue.withdrawn(w.leaseId(), w.revision());
      }
    } else if (input instanceof EtcdInput.Enlisted || input instanceof EtcdInput.EnlistFailed) {
      follower.seat.answered(input);
    } else if (input instanceof Input.TimerFired t) {
      TimerKind kind = fx.fired(t);
      if (kind != null) {
        current().onTimer(kind, now);
      }
    } else {
      current().on(input, now);
    }
    return fx.commands();
  }

  private Role current() {
    return switch (role) {
      case FOLLOWER -> phase == Phase.PROBING ? probing : follower;
      case CANDIDATE -> candidate;
      case MASTER -> master;
      case STOPPED -> throw new IllegalStateException("STOPPED handles its inputs in step");
    };
  }

  // ---- the transition choke point ----

  /**
   * moveTo is the one place the role changes and the one place events are published.
   *
   * <p>An event's {@code from} is always {@code told}: the role the listeners' view stands
   * at, which is the {@code to} of the last event, or where an internal move led (FOLLOWER ↔
   * CANDIDATE publish nothing, PROTOCOL.md §5, and the next event starts from there). It
   * differs from the role only while PROBING: the role has left MASTER, and the listeners,
   * told nothing yet, still see a MASTER. So events pair up by construction: {@code told}
   * becomes MASTER only by publishing ELECTED, and leaves MASTER only by publishing the end of
   * that term.
   *
   * <ul>
   *   <li>{@code cause} null: a move that publishes nothing, FOLLOWER ↔ CANDIDATE, or MASTER →
   *       FOLLOWER once PROBING (the loss is published when the probe ends).
   *   <li>LEADER_CHANGED, STORE_UNAVAILABLE, STORE_RECOVERED keep the role: {@code to} must be
   *       {@code told}. They are held back while PROBING, when they would come from FOLLOWER
   *       before the loss owed to the listeners.
   *   <li>Any other cause moves the listeners from {@code told} to {@code to}.
   * </ul>
   *
   * <p>Both moves, of the role and of the listeners' view, are checked against {@link
   * Transitions}. Leaving a role cancels its timers: a FOLLOWER's POLL; a MASTER's lease
   * renewal (RENEW, DEADLINE), which never outlives the term.
   *
   * @return whether an event was published
   */
  boolean moveTo(ElectorState to, Cause cause, LeaderInfo who, long now) {
    if (cause != null && SAME_ROLE.contains(cause)) {
      if (to != told) {
        throw new IllegalStateException(cause + " keeps the role " + told + ", but was asked to move to " + to);
      }
      if (phase == Phase.PROBING) {
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
    boolean owed = was == ElectorState.MASTER && to == ElectorState.FOLLOWER && phase == Phase.PROBING;
    if (cause == null && !internal && !owed) {
      throw new IllegalStateException(was + " -> " + to + " must be published (told " + told + ")");
    }
    if (cause != null) {
      Transitions.check(told, to);
    }
    if (to != was) {
      Transitions.check(was, to);
      if (was == ElectorState.FOLLOWER) {
        fx.cancelTimer(TimerKind.POLL);
        fx.cancelTimer(TimerKind.CAMPAIGN);
        // A read still in flight is answered to a role that drops it; forget it, or no poll
        // would go out again once this instance is a FOLLOWER again.
        follower.forgetPoll();
      } else if (was == ElectorState.MASTER) {
        lease.stopRenewing();
      }
      role = to;
      if (was == ElectorState.MASTER) {
        // The queue is the MASTER's: back to a watch of the key alone.
        queue.clear();
        watch.rewatch();
      }
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

  // ---- every role ----

  private void close(long now) {
    fx.cancelAllTimers();
    watch.cancel();
    probing.releaseOnClose();
    if (lease.isHeld()) {
      lease.release();
    }
    // A loss still owed to the listeners is ended by CLOSED: they are told MASTER -> STOPPED.
    phase = Phase.NONE;
    moveTo(ElectorState.STOPPED, Cause.CLOSED, null, now);
    leader = null;
  }

  private void stopped(Input input) {
    // A grant that was in flight at close must not leave a lease behind.
    if (input instanceof EtcdInput.LeaseGranted g) {
      fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
    }
  }

  /**
   * progressed records that the store gave the elector what it needs: a read showing the key
   * held, an answered campaign, a confirmed renewal. It ends a reported outage. An answer alone
   * is not progress: a read-only user's reads and lease grants succeed while every campaign is
   * refused, and STORE_RECOVERED on each of them would flap (PROTOCOL.md §9).
   */
  void progressed(long now) {
    failures = 0;
    // While PROBING the event is held back; the next progress after the loss reports it.
    if (unavailable && tell(Cause.STORE_RECOVERED, leader, now)) {
      unavailable = false;
    }
  }

  /**
   * failed records a failed call. An outage is reported once it lasts, {@value #LASTING} failed
   * calls without progress (a cold client's first call may time out), or at once when the store
   * refused for a configuration error, which is also retried at the maximum backoff.
   */
  void failed(long now) {
    boolean configuration = ConfigurationErrors.is(failure);
    failures = configuration ? Math.max(failures + 1, CONFIGURATION_FAILURES) : failures + 1;
    if (!unavailable && (configuration || failures >= LASTING)
        && tell(Cause.STORE_UNAVAILABLE, leader, now)) {
      unavailable = true;
    }
  }

  /** queueRead is the read that lists the queue, for {@code participants()}: K and the prefix. */
  @Override
  public StoreCall queueRead() {
    return new EtcdCommand.Poll(0, true);
  }

  /** queueOf takes the queue out of that read's reply; empty when it failed. */
  @Override
  public List<Participant> queueOf(Input reply) {
    return reply instanceof EtcdInput.PollResult r && r.participants() != null ? r.participants() : List.of();
  }

  /** abandonLease revokes the held lease; a key still bound to it names no leader (see observe). */
  void abandonLease() {
    abandonedLeaseId = lease.id();
    lease.release();
  }

  /** noteRevision records a revision seen in a reply or event, keeping the latest. */
  void noteRevision(long revision) {
    knownRevision = Math.max(knownRevision, revision);
  }

  static LeaderInfo info(KeyRecord key) {
    return new LeaderInfo(key.holderId(), key.token(), key.leaseId());
  }
}
