package dev.leasehold.runtime;

import dev.leasehold.Participant;
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
import java.time.Duration;
import java.time.Instant;
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
 * ElectorRuntime runs one {@link Machine} against one {@link StorePort}, the same way for
 * every backend: an event loop that owns the machine, timers, store calls bounded by the RPC
 * timeout, lease releases retried until confirmed, term handles, the listener bus and the
 * close sequence.
 *
 * <p>One event-loop thread owns all state; store replies only enqueue inputs on it, and
 * nothing ever blocks a store thread. Events reach listeners on the dispatcher (or the
 * executor given at subscription), never on the event loop and never under a lock.
 *
 * <p>Thread-safe: every public method may be called from any thread, including a listener.
 */
public final class ElectorRuntime implements LeaderElector {
  private final Logger log;

  private final ElectorConfig config;
  private final Machine machine;
  private final StorePort store;
  private final Scheduler scheduler;
  private final ListenerBus bus;
  private final String name;
  private final long rpcTimeoutNanos;
  private final Lifecycle lifecycle;
  private final LeadershipWaiters waiters;
  private final HealthTracker tracker;
  private final RenewalListeners renewals;

  // Written on the loop only, read anywhere.
  private volatile Snapshot snapshot = new Snapshot(ElectorState.FOLLOWER, null, null);

  // Loop-confined.
  private final Timers timers;
  private final Watchdog watchdog;
  private final Releases releases;
  private final FailureLog failures;
  private TermHandle term;
  private final Calls calls;
  private final Transfers transfers;
  private final HealthChecks healthChecks;

  private record Snapshot(ElectorState role, LeaderInfo leader, TermHandle term) {}

  /**
   * ElectorRuntime wires a machine to a store; nothing runs until {@link #start()}. The name
   * labels its log lines.
   *
   * @param config the validated elector config
   * @param machine the backend's machine, owned by this runtime from now on
   * @param store the store the machine's calls go to
   * @param scheduler the event loop and dispatcher this runtime runs on
   * @param name the label of its log lines and threads, for example the election key
   */
  public ElectorRuntime(
      ElectorConfig config, Machine machine, StorePort store, Scheduler scheduler, String name) {
    this(config, machine, store, scheduler, name, LoggerFactory.getLogger(ElectorRuntime.class));
  }

  /**
   * ElectorRuntime logs its lifecycle and events to {@code log} (a session's elections share one).
   *
   * @param config the validated elector config
   * @param machine the backend's machine, owned by this runtime from now on
   * @param store the store the machine's calls go to
   * @param scheduler the event loop and dispatcher this runtime runs on
   * @param name the label of its log lines and threads, for example the election key
   * @param log where the lifecycle and events are logged
   */
  public ElectorRuntime(
      ElectorConfig config, Machine machine, StorePort store, Scheduler scheduler, String name, Logger log) {
    this.log = Objects.requireNonNull(log, "log");
    this.config = Objects.requireNonNull(config, "config");
    this.machine = Objects.requireNonNull(machine, "machine");
    this.store = Objects.requireNonNull(store, "store");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.name = Objects.requireNonNull(name, "name");
    this.rpcTimeoutNanos = config.rpcTimeout().toNanos();
    this.lifecycle = new Lifecycle(name, log);
    this.bus = new ListenerBus(scheduler.dispatcher());
    this.releases = new Releases(config, store, scheduler, name, log);
    this.waiters = new LeadershipWaiters(scheduler, () -> snapshot.term(), lifecycle::isClosing);
    this.renewals = new RenewalListeners(scheduler.dispatcher());
    this.tracker = new HealthTracker(
        name, store.backend(), scheduler::nanoTime, renewals, machine.transferUnsupported() == null);
    this.calls = new Calls(name, store, scheduler, rpcTimeoutNanos, this::handle);
    this.transfers = new Transfers(scheduler.dispatcher(), log, name);
    if (config.healthCheck().isPresent() && machine.transferUnsupported() != null) {
      throw new IllegalArgumentException("healthCheck is not supported on the " + store.backend()
          + " backend: an unhealthy leader yields by handing its term to a healthy candidate, and "
          + machine.transferUnsupported());
    }
    this.healthChecks = config.healthCheck().isPresent()
        ? new HealthChecks(config, scheduler, this::submit, log, name)
        : null;
    this.failures = new FailureLog(log, name);
    this.timers = new Timers(scheduler, this::handle);
    long stall = config.workStallTimeout().map(Duration::toNanos).orElse(0L);
    this.watchdog = new Watchdog(scheduler, stall, name, t -> resignOnLoop(t, Cause.WORK_STALLED));
  }

  @Override
  public ElectorConfig config() {
    return config;
  }

  @Override
  public void start() {
    if (!lifecycle.start(config.closeOnShutdown(), this::close)) {
      return;
    }
    log.info("{}: starting ({})", name, config);
    store.open();
    submit(new Input.Start());
    if (healthChecks != null) {
      healthChecks.start();
    }
  }

  @Override
  public ElectorState state() {
    return snapshot.role();
  }

  @Override
  public boolean isLeader() {
    Snapshot s = snapshot;
    return s.role() == ElectorState.MASTER && s.term() != null && s.term().isValid();
  }

  @Override
  public Optional<LeaderInfo> currentLeader() {
    return Optional.ofNullable(snapshot.leader());
  }

  @Override
  public Optional<Leadership> leadership() {
    Snapshot s = snapshot;
    return s.role() == ElectorState.MASTER ? Optional.ofNullable(s.term()) : Optional.empty();
  }

  @Override
  public CompletionStage<Leadership> whenLeading() {
    return waiters.leading().minimalCompletionStage();
  }

  @Override
  public Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException {
    return waiters.await(timeout);
  }

  @Override
  public ElectorHealth health() {
    return tracker.health(lifecycle.isRunning());
  }

  @Override
  public Subscription onRenewal(Consumer<Renewal> listener) {
    return renewals.add(listener);
  }

  @Override
  public void resign() {
    FlightEvents.Resign event = new FlightEvents.Resign();
    if (event.shouldCommit()) {
      event.elector = name;
      event.nanoTime = System.nanoTime();
      event.commit();
    }
    submit(new Input.Resign());
  }

  @Override
  public CompletionStage<LeaderInfo> transferTo(String candidateId) {
    if (candidateId == null || candidateId.isBlank()) {
      throw new IllegalArgumentException("transferTo's candidateId must name a candidate, but was "
          + (candidateId == null ? "null" : "'" + candidateId + "'"));
    }
    String unsupported = machine.transferUnsupported();
    if (unsupported != null) {
      throw new UnsupportedOperationException("transferTo is not supported by " + name + " on the "
          + store.backend() + " backend: " + unsupported);
    }
    CompletableFuture<LeaderInfo> f = new CompletableFuture<>();
    try {
      scheduler.execute(() -> {
        if (lifecycle.isClosing()) {
          // On the dispatcher, as every transfer's answer: a callback attached to the stage must
          // not run on the event loop.
          transfers.refuse(f, "the elector is closed");
        } else {
          handle(new Input.Transfer(transfers.open(f), candidateId));
        }
      });
    } catch (RejectedExecutionException closedAlready) {
      f.completeExceptionally(new IllegalStateException("transfer refused: the elector is closed"));
    }
    return f.minimalCompletionStage();
  }

  @Override
  public CompletionStage<List<Participant>> participants() {
    return QueueView.read(scheduler, machine, store, config.rpcTimeout().toNanos(),
        lifecycle::isRunning);
  }

  /** resignTerm resigns {@code t} from any thread, if it is still the current term then. */
  private void resignTerm(TermHandle t) {
    try {
      scheduler.execute(() -> resignOnLoop(t, Cause.RESIGNED));
    } catch (RejectedExecutionException closedAlready) {
      // Closing released the term already.
    }
  }

  private void resignOnLoop(TermHandle t, Cause cause) {
    if (t == term && !t.ended()) {
      handle(new Input.Resign(cause));
    }
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener) {
    return onLeadershipChanged(listener, scheduler.dispatcher());
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
    return bus.subscribe(scheduler::execute, listener, executor, this::snapshotEvent);
  }

  @Override
  public void close() {
    closeAsync();
    // Calls in flight, unanswered timed-out calls, then releases (see closeOnLoop).
    lifecycle.await(scheduler, 4 * rpcTimeoutNanos + TimeUnit.SECONDS.toNanos(2));
  }

  @Override
  public CompletionStage<Void> closeAsync() {
    return lifecycle.closeOn(scheduler::execute, this::closeOnLoop, this::finishClose);
  }

  /**
   * whenClosed completes once a close finished (without starting one), for an owner's bookkeeping.
   *
   * @return a stage that completes once the close is done
   */
  public CompletionStage<Void> whenClosed() {
    return lifecycle.whenClosed();
  }

  // ---- the close sequence, on the loop ----

  private void closeOnLoop() {
    handle(new Input.Close());
    transfers.closed();
    // Calls in flight (a lease grant above all) reach the stopped machine, which releases
    // what they created; each is bounded by the RPC timeout. Then wait for the releases.
    calls.afterAll(() -> releases.whenDone(2 * rpcTimeoutNanos, this::finishClose));
  }

  private void finishClose() {
    if (healthChecks != null) {
      healthChecks.stop();
    }
    timers.cancelAll();
    watchdog.stop();
    waiters.closed();
    store.close();
    scheduler.shutdown();
    log.info("{}: closed", name);
    lifecycle.finished();
  }

  // ---- the event loop ----

  private void submit(Input input) {
    try {
      scheduler.execute(() -> handle(input));
    } catch (RejectedExecutionException closedAlready) {
      // After close the machine accepts nothing; calls were drained before the loop stopped.
    }
  }

  private void handle(Input input) {
    FlightEvents.LoopStep event = new FlightEvents.LoopStep();
    if (event.isEnabled()) {
      event.nanoTime = System.nanoTime();
      event.begin();
    }
    step(input);
    if (event.shouldCommit()) {
      event.elector = name;
      event.input = input.getClass().getSimpleName();
      event.commit();
    }
  }

  private void step(Input input) {
    if (input instanceof Input.Failed f) {
      failures.failed(f.reason());
    } else if (input instanceof Input.HealthChanged h) {
      tracker.unhealthy(h.healthy() ? null : h.reason());
    }
    List<Command> commands;
    try {
      commands = machine.step(input, scheduler.nanoTime());
    } catch (RuntimeException e) {
      log.error("{}: protocol machine failed on {}", name, input, e);
      return;
    }
    // Refresh the snapshot before carrying out commands, so isLeader() turns false before
    // any listener hears of a loss.
    refreshSnapshot();
    for (Command c : commands) {
      try {
        execute(c);
      } catch (RuntimeException e) {
        log.error("{}: failed to carry out {}", name, c, e);
      }
    }
  }

  private void refreshSnapshot() {
    ElectorState role = machine.role();
    LeaderInfo leader = machine.leader();
    // While MASTER the leader is this instance with its term's token (Machine#leader).
    if (term != null && (role != ElectorState.MASTER || !termOf(leader, term))) {
      term.end();
    }
    if (role == ElectorState.MASTER && term != null && !term.ended()) {
      term.extend(machine.deadline());
    }
    TermHandle current = role == ElectorState.MASTER && term != null && !term.ended() ? term : null;
    snapshot = new Snapshot(role, leader, current);
    tracker.afterStep(role, leader, machine.renewalSentAt(), scheduler.nanoTime());
  }

  private static boolean termOf(LeaderInfo leader, TermHandle term) {
    return leader != null && leader.fencingToken() == term.fencingToken();
  }

  private void execute(Command c) {
    if (c instanceof Command.SetTimer t) {
      timers.set(t);
    } else if (c instanceof Command.CancelTimer t) {
      timers.cancel(t.timer());
    } else if (c instanceof Command.Publish p) {
      publish(p);
    } else if (c instanceof Command.TransferOutcome o) {
      transfers.answered(o);
    } else if (c instanceof Command.Release r) {
      releases.release(r.leaseId(), r.ttlSeconds());
    } else if (c instanceof StoreCall call) {
      calls.send(call);
    } else {
      store.send(c, this::submit);
    }
  }

  // ---- events ----

  private void publish(Command.Publish p) {
    Instant now = Instant.now();
    Optional<Leadership> leadership = Optional.empty();
    if (p.cause() == Cause.ELECTED) {
      term =
          new TermHandle(
              config.electionKey(),
              config.candidateId(),
              p.term(),
              p.term().grantedTtl() != null ? p.term().grantedTtl() : config.leaseTtl(),
              now,
              scheduler::nanoTime,
              store.guarantee(),
              this::resignTerm);
      refreshSnapshot();
      leadership = Optional.of(term);
    }
    Optional<String> reason =
        p.cause() == Cause.STORE_UNAVAILABLE ? Optional.of(failures.outageBegan()) : Optional.empty();
    LeadershipEvent event =
        new LeadershipEvent(
            p.from(), p.to(), p.cause(), Optional.ofNullable(p.leader()), now, p.nanoTime(),
            leadership, reason);
    tracker.onEvent(event);
    if (event.isLost() && term != null) {
      TermHandle ended = term;
      ended.end();
      term = null;
      watchdog.stop();
      try {
        scheduler.dispatcher().execute(() -> ended.completeLost(event));
      } catch (RejectedExecutionException closedAlready) {
        log.warn("{}: dispatcher gone; whenLost() callbacks not run for {}", name, event.cause());
      }
    }
    recordPublished(event);
    bus.publish(event);
    if (p.cause() == Cause.ELECTED) {
      watchdog.watch(term);
      waiters.elected(term);
    }
    // After the hand-off to the listeners: the line is written on the loop, and a new leader's
    // callback need not wait for it.
    failures.logEvent(event);
  }

  private void recordPublished(LeadershipEvent e) {
    FlightEvents.LeadershipChange change = new FlightEvents.LeadershipChange();
    if (change.shouldCommit()) {
      change.elector = name;
      change.from = e.from().name();
      change.to = e.to().name();
      change.cause = e.cause().name();
      change.leader = e.leader().map(LeaderInfo::candidateId).orElse(null);
      change.token = e.leadership().map(Leadership::fencingToken).orElse(0L);
      change.nanoTime = System.nanoTime();
      change.commit();
    }
  }

  private LeadershipEvent snapshotEvent() {
    Snapshot s = snapshot;
    Optional<Leadership> leadership =
        s.role() == ElectorState.MASTER ? Optional.ofNullable(s.term()) : Optional.empty();
    return new LeadershipEvent(
        s.role(), s.role(), Cause.SUBSCRIBED, Optional.ofNullable(s.leader()), Instant.now(),
        scheduler.nanoTime(), leadership, Optional.empty());
  }
}
