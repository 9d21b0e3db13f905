package dev.leasehold.select;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.Lifecycle;
import dev.leasehold.runtime.RenewalListeners;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FallbackRuntime runs one elector at a time over an ordered list of backends ({@link BackendTier}s),
 * forwards its events to its own listener bus, and switches backend by its {@link
 * FallbackPolicy}: {@link Switch} carries a switch out.
 *
 * <p>Rules that keep a fallback safe: a switch never begins while listeners were last told
 * MASTER (an unreachable store ends the term by its deadline first); the elector left is
 * resigned and closed, and the next one is built and started only once its CLOSED event and its
 * close have both arrived, so no two of this process's terms overlap across backends; FALLBACK
 * and FALLBACK_ENDED are published between the two, from and to a non-MASTER role.
 *
 * <p>Thread-safe: every public method may be called from any thread, including a listener. One
 * event-loop thread (the scheduler's) owns all state; inner electors deliver their events onto
 * it; listeners run on the dispatcher (or their executor), never on the loop or under a lock.
 */
final class FallbackRuntime implements FallbackElector {
  private static final Logger log = LoggerFactory.getLogger(FallbackRuntime.class);
  private static final long CLOSED_EVENT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  final ElectorConfig config;
  final List<BackendTier> tiers;
  final FallbackPolicy policy;
  final long fallbackAfterNanos;
  final long returnAfterNanos;
  final Scheduler scheduler;
  final String name;
  private final FallbackEvents events;
  private final RenewalListeners renewals;
  private final Lifecycle lifecycle;

  // Written on the loop only, read anywhere.
  private volatile LeaderElector innerView;
  private volatile int activeView;
  // Why the active tier's elector could not be built; null once one was.
  private volatile String buildFailure;

  // Loop-confined.
  private Switch pending;
  private boolean closeRequested;
  private final Reach reach;

  /** FallbackRuntime wires the tiers; nothing is built or started until {@link #start()}. */
  FallbackRuntime(
      ElectorConfig config,
      List<BackendTier> tiers,
      FallbackPolicy policy,
      Duration fallbackAfter,
      Duration returnAfter,
      Scheduler scheduler,
      String name) {
    this.config = Objects.requireNonNull(config, "config");
    this.tiers = List.copyOf(tiers);
    this.policy = Objects.requireNonNull(policy, "policy");
    this.fallbackAfterNanos = fallbackAfter.toNanos();
    this.returnAfterNanos = returnAfter.toNanos();
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.name = Objects.requireNonNull(name, "name");
    if (this.tiers.isEmpty()) {
      throw new IllegalArgumentException("tiers must not be empty");
    }
    this.lifecycle = new Lifecycle(this.name, log);
    this.events = new FallbackEvents(scheduler, () -> closeRequested);
    this.renewals = new RenewalListeners(scheduler.dispatcher());
    this.reach = new Reach(this);
  }

  // ---- FallbackElector ----

  @Override
  public List<Backend> backends() {
    return tiers.stream().map(BackendTier::backend).toList();
  }

  @Override
  public FallbackPolicy policy() {
    return policy;
  }

  @Override
  public Duration fallbackAfter() {
    return Duration.ofNanos(fallbackAfterNanos);
  }

  @Override
  public Duration returnAfter() {
    return Duration.ofNanos(returnAfterNanos);
  }

  @Override
  public Backend activeBackend() {
    return tiers.get(activeView).backend();
  }

  @Override
  public Optional<Backend> fallbackInForce() {
    int a = activeView;
    return a == 0 ? Optional.empty() : Optional.of(tiers.get(a).backend());
  }

  // ---- LeaderElector ----

  @Override
  public ElectorConfig config() {
    return config;
  }

  @Override
  public void start() {
    if (lifecycle.start(config.closeOnShutdown(), this::close)) {
      log.info("{}: starting on {} (backends {}, policy {})", name, activeBackend(), backends(), policy);
      execute(this::startInner);
    }
  }

  @Override
  public ElectorState state() {
    if (events.told() == ElectorState.STOPPED) {
      return ElectorState.STOPPED;
    }
    LeaderElector inner = innerView;
    ElectorState s = inner == null ? ElectorState.FOLLOWER : inner.state();
    return s == ElectorState.STOPPED ? ElectorState.FOLLOWER : s;
  }

  @Override
  public boolean isLeader() {
    LeaderElector inner = innerView;
    return inner != null && inner.isLeader();
  }

  @Override
  public Optional<LeaderInfo> currentLeader() {
    LeaderElector inner = innerView;
    return inner == null ? Optional.empty() : inner.currentLeader();
  }

  @Override
  public Optional<Leadership> leadership() {
    LeaderElector inner = innerView;
    return inner == null ? Optional.empty() : inner.leadership();
  }

  @Override
  public CompletionStage<Leadership> whenLeading() {
    return events.waiters().leading().minimalCompletionStage();
  }

  @Override
  public Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException {
    return events.waiters().await(timeout);
  }

  @Override
  public ElectorHealth health() {
    return FallbackHealth.of(
        innerView, state(), lifecycle.isRunning(), activeBackend(), fallbackInForce(),
        events.leader(), buildFailure);
  }

  @Override
  public Subscription onRenewal(Consumer<Renewal> listener) {
    return renewals.add(listener);
  }

  @Override
  public CompletionStage<LeaderInfo> transferTo(String candidateId) {
    LeaderElector inner = innerView;
    if (inner == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("transfer refused: no backend elects yet"));
    }
    return inner.transferTo(candidateId);
  }

  @Override
  public CompletionStage<List<dev.leasehold.Participant>> participants() {
    LeaderElector inner = innerView;
    return inner == null ? CompletableFuture.completedFuture(List.of()) : inner.participants();
  }

  @Override
  public void resign() {
    LeaderElector inner = innerView;
    if (inner != null) {
      inner.resign();
    }
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener) {
    return onLeadershipChanged(listener, scheduler.dispatcher());
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
    return events.subscribe(listener, executor);
  }

  @Override
  public void close() {
    closeAsync();
    lifecycle.await(scheduler, 3 * config.rpcTimeout().toNanos() + TimeUnit.SECONDS.toNanos(5));
  }

  @Override
  public CompletionStage<Void> closeAsync() {
    return lifecycle.closeOn(scheduler::execute, this::closeOnLoop, lifecycle::finished);
  }

  // ---- on the loop ----

  private void closeOnLoop() {
    closeRequested = true;
    reach.stop();
    if (pending != null) {
      return; // the switch in progress finishes the close once the elector it leaves is closed
    }
    LeaderElector inner = innerView;
    if (inner == null) {
      finishClose();
    } else {
      pending = new Switch(this, inner, -1, Cause.CLOSED, null);
    }
  }

  /** switchDone runs once the elector a switch left is closed and its CLOSED event arrived. */
  void switchDone(Switch s) {
    if (pending != s) {
      return;
    }
    pending = null;
    innerView = null;
    if (events.told() == ElectorState.MASTER) {
      // Only when its CLOSED event never came: the term is over all the same (it was closed).
      events.publish(closeRequested ? ElectorState.STOPPED : ElectorState.FOLLOWER,
          closeRequested ? Cause.CLOSED : Cause.RESIGNED, null, null, null);
    }
    if (closeRequested) {
      finishClose();
      return;
    }
    enter(s.target, s.cause, s.reason);
  }

  /** enter makes tier {@code target} active: the switch's one event and WARN line, then its elector. */
  private void enter(int target, Cause cause, String reason) {
    activeView = target;
    events.publish(events.told(), cause, null, null, reason);
    log.warn("{}: {} {}; terms now carry guarantee {}", name, cause, reason,
        tiers.get(target).backend().guarantee());
    startInner();
  }

  private void finishClose() {
    if (events.told() != ElectorState.STOPPED) {
      events.publish(ElectorState.STOPPED, Cause.CLOSED, null, null, null);
    }
    events.waiters().closed();
    reach.stop();
    scheduler.shutdown();
    log.info("{}: closed", name);
    lifecycle.finished();
  }

  private void startInner() {
    if (closeRequested) {
      return;
    }
    BackendTier tier = tiers.get(activeView);
    reach.activated(activeView);
    LeaderElector inner;
    try {
      inner = tier.elector().get();
    } catch (RuntimeException e) {
      log.error("{}: could not build the {} elector", name, tier.backend().propertyName(), e);
      buildFailure = tier.backend().propertyName() + ": " + e;
      events.publish(events.told(), Cause.STORE_UNAVAILABLE, null, null, buildFailure);
      reach.unreachable(scheduler.nanoTime(), String.valueOf(e.getMessage()));
      return;
    }
    innerView = inner;
    buildFailure = null;
    inner.onLeadershipChanged(e -> onInner(inner, e), this::execute);
    inner.onRenewal(r -> {
      if (inner == innerView) {
        renewals.report(r);
      }
    });
    inner.start();
  }

  private void onInner(LeaderElector source, LeadershipEvent e) {
    Switch s = pending;
    if (e.cause() == Cause.SUBSCRIBED || (source != innerView && (s == null || s.leaving != source))) {
      return;
    }
    if (e.to() == ElectorState.STOPPED) {
      if (events.told() == ElectorState.MASTER) {
        // A close we began: the composite lives on unless it is closing itself.
        events.publish(closeRequested ? ElectorState.STOPPED : ElectorState.FOLLOWER,
            closeRequested ? Cause.CLOSED : Cause.RESIGNED, null, null, null);
      }
      if (s != null && s.leaving == source) {
        s.closedEventArrived();
      }
      return;
    }
    events.publish(e.to(), e.cause(), e.leader().orElse(null), e.leadership().orElse(null),
        e.reason().orElse(null));
    if (s == null) {
      reach.observed(e);
    }
  }

  /** beginSwitch leaves the active elector for tier {@code target}; see {@link Switch}. */
  void beginSwitch(int target, Cause cause, String reason) {
    if (pending != null || closeRequested) {
      return;
    }
    LeaderElector inner = innerView;
    if (inner == null) {
      enter(target, cause, reason); // the active tier's elector could not be built: nothing to close
      return;
    }
    pending = new Switch(this, inner, target, cause, reason);
  }

  /** activeIndex is the active tier's index. */
  int activeIndex() {
    return activeView;
  }

  /** toldRole is the role listeners were last told; read on the loop. */
  ElectorState toldRole() {
    return events.told();
  }

  /** switching is true while a switch (or the close) is under way; read on the loop. */
  boolean switching() {
    return pending != null || closeRequested;
  }

  /** execute runs a task on the loop, dropping it once the loop has stopped. */
  void execute(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (RejectedExecutionException stopped) {
      // Closed: nothing is left to act on.
    }
  }

  /** graceNanos is how long a closed elector's CLOSED event may lag its close. */
  static long graceNanos() {
    return CLOSED_EVENT_GRACE_NANOS;
  }
}
