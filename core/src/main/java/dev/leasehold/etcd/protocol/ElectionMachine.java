package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Reachability;
import dev.leasehold.runtime.RoleMachine;
import dev.leasehold.runtime.Roles;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.Transitions;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * ElectionMachine is the Leasehold protocol as a pure state machine: it takes an
 * {@link Input} and the current monotonic time, changes its state, and returns the
 * {@link Command}s its driver must carry out. It does no I/O, reads no clock and starts no
 * thread, so a test or a simulation can drive it step by step.
 *
 * <p>The roles and their legal moves are in {@link Transitions#ELECTION}; PROTOCOL.md is the
 * normative description. In brief: a FOLLOWER reads and watches the key and becomes CANDIDATE
 * when it is absent; a CANDIDATE grants a lease and commits the compare-and-swap; a MASTER renews
 * (as late as leaves 2 s of its window, TTL/6 to TTL/2) and extends its local deadline only when
 * a keep-alive ack is followed by a linearizable read, sent after the ack, that shows the key
 * still bound to its lease and carries the ack's raft term; it steps down at the deadline or as
 * soon as it learns the key or lease is gone.
 *
 * <p>Parts. {@link #apply} hands each input to the current role's handler ({@link Follower},
 * {@link Candidate}, {@link Master}; {@link Probing} while a MASTER that saw its key deleted
 * asks whether its lease went too); the {@link Lease} holds the lease, its renewal and its
 * deadline; the runtime's {@link Roles} is the one place the role changes and events are
 * published. What every role shares: the {@link KeyView} (what is known of the key), the
 * {@link KeyWatch}, the lease, the choke point. A role reaches another only through the few
 * methods at the end of this class.
 *
 * <p>Not thread-safe: one thread (the driver's event loop) owns an instance.
 */
public final class ElectionMachine extends RoleMachine {
  final ProtocolConfig config;
  final Effects fx;
  final Reachability reach;
  final Roles roles;
  final Lease lease;
  final KeyView key;
  final KeyWatch watch;
  final Queue queue = new Queue();
  private final Follower follower;
  private final Candidate candidate;
  private final Master master;
  private final Probing probing;
  // The user's health check holds this candidate unhealthy (PROTOCOL.md §4.5).
  private boolean unhealthy;

  /**
   * ElectionMachine starts as a FOLLOWER that has not started; {@code random} draws jitter.
   *
   * @param config the protocol settings, derived from the elector's config
   * @param random the source of retry jitter; a seeded one makes a simulation repeatable
   */
  public ElectionMachine(ProtocolConfig config, RandomGenerator random) {
    this(Objects.requireNonNull(config, "config"), new Effects(config, Objects.requireNonNull(random, "random")),
        new Reachability(Reachability.LASTING));
  }

  private ElectionMachine(ProtocolConfig config, Effects fx, Reachability reach) {
    super(Transitions.ELECTION, fx, reach);
    this.config = config;
    this.fx = fx;
    this.reach = reach;
    this.roles = roles();
    this.lease = new Lease(config, fx);
    this.key = new KeyView(roles);
    this.watch = new KeyWatch(config, fx, key, roles);
    this.follower = new Follower(this);
    this.candidate = new Candidate(this);
    this.master = new Master(this);
    this.probing = new Probing(this, follower);
  }

  /**
   * deadline is the local time (monotonic clock) until which etcd surely keeps the held lease:
   * the MASTER's deadline; for a follower, its standby lease's; Long.MIN_VALUE with no lease.
   */
  @Override
  public long deadline() {
    return lease.deadline();
  }

  /**
   * leaseId is the lease this instance holds (standby, CANDIDATE or MASTER), or 0.
   *
   * @return the held lease's id, or 0 when none is held
   */
  public long leaseId() {
    return lease.id();
  }

  /** renewalSentAt is the send time of the held lease's last confirmed renewal (or grant). */
  @Override
  public long renewalSentAt() {
    return lease.renewalSentAt();
  }

  /**
   * grantedTtlSeconds is the TTL etcd granted the current lease, or 0.
   *
   * @return the granted TTL in seconds, or 0 when no lease is held
   */
  public long grantedTtlSeconds() {
    return lease.ttlSeconds();
  }

  /**
   * isUnavailable is true between a STORE_UNAVAILABLE report and the next progress.
   *
   * @return true while the store is reported unavailable
   */
  public boolean isUnavailable() {
    return reach.isUnavailable();
  }

  /** probing is true while a MASTER that saw its key deleted names its loss (PROTOCOL.md §2). */
  boolean probing() {
    return roles.owesLoss();
  }

  /** apply hands one input to the part it is for: the watch, the queue, the seat, or the current role. */
  @Override
  protected void apply(Input input, long now) {
    if (roles.role() == ElectorState.STOPPED) {
      stopped(input);
    } else if (input instanceof Input.Close) {
      close(now);
    } else if (input instanceof Input.HealthChanged h) {
      healthChanged(h.healthy(), now);
    } else if (input instanceof Input.Transfer t && roles.role() != ElectorState.MASTER) {
      refuseTransfer(t, "this instance does not lead (it is " + roles.role() + "); it has no term to hand over");
    } else if (input instanceof EtcdInput.WatchFailed f) {
      watch.failed(f, now);
    } else if (input instanceof EtcdInput.WatchEnlisted e) {
      if (watch.from(e.watchId())) {
        queue.enlisted(e.participant());
        master.queueChanged(now);
      }
    } else if (input instanceof EtcdInput.WatchWithdrawn w) {
      if (watch.from(w.watchId())) {
        queue.withdrawn(w.leaseId(), w.revision());
        master.queueChanged(now);
      }
    } else if (input instanceof EtcdInput.TransferRequested r) {
      if (watch.from(r.watchId()) && roles.role() == ElectorState.MASTER) {
        master.requested(r, now);
      }
    } else if (input instanceof EtcdInput.Enlisted || input instanceof EtcdInput.EnlistFailed) {
      follower.enlistAnswered(input);
    } else if (input instanceof Input.TimerFired t) {
      TimerKind kind = fx.fired(t);
      if (kind != null) {
        current().onTimer(kind, now);
      }
    } else {
      current().on(input, now);
    }
  }

  private Role current() {
    return roles.pick(follower, candidate, master, probing);
  }

  /**
   * left is the hook {@link Roles} runs on every role left: a FOLLOWER's reads and campaign
   * timers go (a read still in flight is answered to a role that drops it, and would hold back
   * the next poll); a MASTER's lease renewal (RENEW, DEADLINE) and its preemption (PREEMPT)
   * never outlive the term, and its view of the queue goes with it: back to a watch of the key
   * alone.
   */
  @Override
  protected void left(ElectorState from, ElectorState to) {
    if (from == ElectorState.FOLLOWER) {
      fx.cancelTimer(TimerKind.POLL);
      fx.cancelTimer(TimerKind.CAMPAIGN);
      follower.forgetPoll();
    } else if (from == ElectorState.MASTER) {
      master.termLeft();
      lease.stopRenewing();
      fx.cancelTimer(TimerKind.PREEMPT);
      queue.clear();
      watch.rewatch();
    }
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
    roles.moveTo(ElectorState.STOPPED, Cause.CLOSED, null, now);
  }

  private void stopped(Input input) {
    // A grant that was in flight at close must not leave a lease behind.
    if (input instanceof EtcdInput.LeaseGranted g) {
      fx.add(new Command.Release(g.leaseId(), g.ttlSeconds()));
    }
  }

  /** transferUnsupported is null: a MASTER hands its term to a named candidate of its queue. */
  @Override
  public String transferUnsupported() {
    return null;
  }

  /**
   * healthChanged follows the user's health check: unhealthy, a MASTER yields to the next healthy
   * candidate of its queue (or keeps its term while there is none) and a FOLLOWER leaves the
   * queue and stops campaigning; a CANDIDATE's campaign runs its course (a term it wins yields
   * at once). Healthy again, a FOLLOWER reads the key, which rejoins it to the election.
   */
  private void healthChanged(boolean healthy, long now) {
    if (unhealthy == !healthy) {
      return;
    }
    unhealthy = !healthy;
    if (roles.role() == ElectorState.MASTER) {
      master.yieldIfUnhealthy(now);
    } else if (roles.role() == ElectorState.FOLLOWER && !probing()) {
      if (unhealthy) {
        follower.leaveQueue(now);
      } else {
        follower.poll();
      }
    }
  }

  /** unhealthy is true while the user's health check holds this candidate unhealthy. */
  boolean unhealthy() {
    return unhealthy;
  }

  /** refuseTransfer answers {@code t} with {@code reason}; nothing was handed over. */
  void refuseTransfer(Input.Transfer t, String reason) {
    fx.add(new Command.TransferOutcome(t.id(), null, reason));
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

  static LeaderInfo info(KeyRecord key) {
    return new LeaderInfo(key.holderId(), key.token(), key.leaseId());
  }

  // ---- what the roles ask of each other ----

  /** campaign moves the FOLLOWER that found the key free to CANDIDATE and starts its campaign. */
  void campaign(long now) {
    candidate.begin(now);
  }

  /**
   * coldCampaign moves the FOLLOWER that has just started to CANDIDATE without a read: a grant
   * and an enlisting campaign, each waiting as long as its lease can serve (PROTOCOL.md §4.5).
   */
  void coldCampaign(long now) {
    candidate.beginCold(now);
  }

  /** adopt makes the FOLLOWER whose standby lease was handed the key (at revision {@code token}) MASTER. */
  void adopt(long token, long now) {
    candidate.adopt(token, now);
  }

  /** lead makes the CANDIDATE whose key became its at revision {@code token} MASTER. */
  void lead(long token, long now) {
    master.begin(token, now);
  }

  /** probe steps the MASTER that saw its key deleted down, and asks etcd why (PROBING). */
  void probe(long now) {
    probing.begin(now);
  }

  /** readKey has the FOLLOWER read the key now. */
  void readKey() {
    follower.poll();
  }

  /** retryRead has the FOLLOWER read the key again after the backoff of the failures so far. */
  void retryRead(long now) {
    follower.retry(now);
  }

  /** readKeyLater has the FOLLOWER read the key a poll interval from now (or on its standby renewals). */
  void readKeyLater(long now) {
    follower.pollLater(now);
  }

  /**
   * needsEnlisting tells whether a campaign should also enlist the candidate in its Else branch:
   * standby leases on, and no participant key on the campaign's lease yet.
   */
  boolean needsEnlisting() {
    return follower.needsEnlisting();
  }

  /** enlistedByCampaign notes the participant key a lost campaign put on {@code leaseId}. */
  void enlistedByCampaign(long leaseId) {
    follower.enlistedByCampaign(leaseId);
  }

  /** followHolder has the FOLLOWER that lost a campaign follow the holder the campaign showed. */
  void followHolder(KeyRecord holder, long revision, long now) {
    follower.followHolder(holder, revision, now);
  }

  /**
   * handOver sends the transaction that gives the key of the term {@code token} to {@code next};
   * {@code transfer} is the {@link Input.Transfer} it carries out, answered with its outcome, or
   * 0 for a resign or a preemption.
   */
  void handOver(long token, Participant next, long transfer) {
    follower.handOver(token, next, transfer);
  }

  /** holdOff keeps this instance out of the election until {@code until}, or until another leader is seen. */
  void holdOff(long until) {
    follower.holdOff(until);
  }

  /** abandonLease revokes the held lease; a key still bound to it names no leader (see {@link KeyView#holder}). */
  void abandonLease() {
    key.abandoned(lease.id());
    lease.release();
  }
}
