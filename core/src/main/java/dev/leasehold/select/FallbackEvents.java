package dev.leasehold.select;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Subscription;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ListenerBus;
import dev.leasehold.runtime.LeadershipWaiters;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * FallbackEvents is what a {@link FallbackRuntime}'s listeners are told: the one choke point
 * that publishes its events (forwarded from the inner electors, or its own FALLBACK,
 * FALLBACK_ENDED and CLOSED), the role, leader and term they were last told, the listener bus
 * and the leadership waiters.
 *
 * <p>Thread safety: {@link #publish} runs on the runtime's loop only; the views it writes are
 * volatile, read from any thread; {@link #subscribe} may be called from any thread.
 */
final class FallbackEvents {
  private final Scheduler scheduler;
  private final ListenerBus bus;
  private final LeadershipWaiters waiters;

  // Written on the loop only, read anywhere.
  private volatile ElectorState told = ElectorState.FOLLOWER;
  private volatile Leadership termView;
  private volatile LeaderInfo leaderView;

  FallbackEvents(Scheduler scheduler, BooleanSupplier closing) {
    this.scheduler = scheduler;
    this.bus = new ListenerBus(scheduler.dispatcher());
    this.waiters =
        new LeadershipWaiters(
            scheduler, () -> told == ElectorState.MASTER ? termView : null, closing);
  }

  /** told is the role listeners were last told. */
  ElectorState told() {
    return told;
  }

  /** leader is the leader listeners were last told of, or null. */
  LeaderInfo leader() {
    return leaderView;
  }

  /** waiters are the {@code whenLeading}/{@code awaitLeadership} waiters. */
  LeadershipWaiters waiters() {
    return waiters;
  }

  /** publish tells every listener one event from the role they were last told to {@code to}. */
  void publish(ElectorState to, Cause cause, LeaderInfo leader, Leadership leadership, String reason) {
    LeadershipEvent event =
        new LeadershipEvent(
            told, to, cause, Optional.ofNullable(leader), Instant.now(), scheduler.nanoTime(),
            Optional.ofNullable(to == ElectorState.MASTER ? leadership : null),
            Optional.ofNullable(reason));
    told = to;
    leaderView = leader;
    if (event.isElected()) {
      termView = leadership;
    } else if (to != ElectorState.MASTER) {
      termView = null;
    }
    bus.publish(event);
    if (event.isElected() && leadership != null) {
      waiters.elected(leadership);
    }
  }

  /** subscribe adds a listener; see {@link ListenerBus#subscribe}. */
  Subscription subscribe(LeadershipListener listener, Executor executor) {
    return bus.subscribe(scheduler::execute, listener, executor, this::snapshotEvent);
  }

  private LeadershipEvent snapshotEvent() {
    ElectorState role = told;
    Leadership t = termView;
    return new LeadershipEvent(
        role, role, Cause.SUBSCRIBED, Optional.ofNullable(leaderView), Instant.now(),
        scheduler.nanoTime(),
        Optional.ofNullable(role == ElectorState.MASTER ? t : null), Optional.empty());
  }
}
