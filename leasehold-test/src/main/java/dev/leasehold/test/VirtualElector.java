package dev.leasehold.test;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorHealth;
import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeaderTask;
import dev.leasehold.LeaderTaskOutcome;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.WhileLeader;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * VirtualElector is one instance of a service on a {@link VirtualStore}: core's real elector
 * (runtime and etcd protocol machine) on a virtual event loop and dispatcher, with a clock of its
 * own (which {@link VirtualFaults#drift} can make run fast or slow), its own link to the store
 * ({@link VirtualFaults#partition}), and an {@link #executor()} for the instance's own work, which
 * {@link VirtualFaults#pause} holds along with the elector.
 *
 * <p>It behaves as the production elector, with two differences made for the test thread:
 * {@link #awaitLeadership}, {@link #runWhileLeader}, {@link #close()} and {@link #closeAsync()},
 * called from outside the code the time runs, run virtual time while they wait instead of
 * blocking; and {@code runWhileLeader} runs its task on a simulated thread of the instance
 * ({@link #thread}), where only the kit's {@link #sleep} and {@link #await} wait (a real
 * {@code Thread.sleep} or blocking wait in the task holds the whole time).
 *
 * <p>Thread safety: its reads ({@link #state()}, {@link #isLeader()}, {@link #leadership()},
 * {@link #currentLeader()}, {@link #health()}, and a {@link Leadership}'s {@code isValid()}) may
 * be called from any thread, as on the production elector; everything else only from the thread
 * that drives the time, or the code the time runs.
 */
public final class VirtualElector implements LeaderElector {
  /** DISPATCH_SLACK is more than a dispatcher's latest wake-up (20 ms): what was published is heard within it. */
  static final Duration DISPATCH_SLACK = Duration.ofMillis(50);

  private final VirtualStore store;
  private final VirtualTime time;
  private final SimClock clock;
  private final SimScheduler loop;
  private final SimScheduler worker;
  private final StoreLink link;
  private final ElectorRuntime runtime;
  private final VirtualExecutor executor;
  private final List<SimulatedThread> threads = new ArrayList<>();
  private boolean crashed;

  private VirtualElector(VirtualStore store, ElectorConfig config, Logger log) {
    this.store = store;
    this.time = store.time();
    SplittableRandom rnd = time.random();
    // nanoTime's origin is arbitrary: each instance reads its own.
    this.clock = new SimClock(rnd.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L), 1.0);
    this.loop = time.thread(clock);
    this.worker = time.thread(clock);
    this.link = new StoreLink(
        LocalBackend.port(store.local(), config.electionKey(), config.candidateId()), time);
    ElectionMachine machine = new ElectionMachine(ProtocolConfig.from(config), rnd.split());
    String name = config.candidateId() + "@" + config.electionKey();
    this.runtime = log == null
        ? new ElectorRuntime(config, machine, link, loop, name)
        : new ElectorRuntime(config, machine, link, loop, name, log);
    this.executor = new VirtualExecutor(worker);
  }

  /**
   * executor is this instance's own single thread, on its clock, for the instance's work: code
   * that schedules on a {@link ScheduledExecutorService} runs here unchanged, on virtual time. It
   * is held while the instance is paused.
    *
    * @return the instance's executor on virtual time
   */
  public ScheduledExecutorService executor() {
    return executor;
  }

  /**
   * thread starts a simulated thread of this instance running {@code body}, at the current
   * virtual instant: code on it may block with {@link #sleep} and {@link #await}, which wait in
   * virtual time, and {@link Thread#interrupt()} from a
   * listener wakes it, as on a real thread. Its turns come through the instance's own thread, so
   * a pause of the instance holds it too; closing the store ends it.
    *
    * @param name the thread's name, shown in logs and the history
    * @param body what the thread runs
    * @return the simulated thread, already started
   */
  public Thread thread(String name, Runnable body) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(body, "body");
    SimulatedThread t = new SimulatedThread(this, worker, name, body);
    threads.add(t);
    t.begin();
    return t;
  }

  /**
   * sleep waits {@code duration} of this instance's virtual time, on one of its simulated
   * threads ({@link #thread}).
   *
    * @param duration how much virtual time to wait; zero or negative returns at once
   * @throws InterruptedException when the thread is interrupted before or during the sleep
   * @throws IllegalStateException when not called on a simulated thread of this instance
   */
  public void sleep(Duration duration) throws InterruptedException {
    VirtualTime.requireNonNegative(duration, "duration");
    current("sleep").sleep(duration);
  }

  /**
   * await waits until {@code stage} completes, for at most {@code timeout} of this instance's
   * virtual time, on one of its simulated threads ({@link #thread}), and returns its value.
   *
    * @param <T> the stage's value type
    * @param stage what to wait for
    * @param timeout the most virtual time to wait
    * @return the stage's value
   * @throws InterruptedException when the thread is interrupted before or during the wait
   * @throws TimeoutException when {@code timeout} passed first
   * @throws ExecutionException when the stage failed
   * @throws IllegalStateException when not called on a simulated thread of this instance
   */
  public <T> T await(CompletionStage<T> stage, Duration timeout)
      throws InterruptedException, TimeoutException, ExecutionException {
    Objects.requireNonNull(stage, "stage");
    VirtualTime.requireNonNegative(timeout, "timeout");
    return current("await").await(stage, timeout);
  }

  private SimulatedThread current(String what) {
    if (Thread.currentThread() instanceof SimulatedThread t && t.owner() == this) {
      return t;
    }
    throw new IllegalStateException(what + " waits on a simulated thread of "
        + runtime.config().candidateId() + " (start one with thread(name, body)), but was called on "
        + Thread.currentThread().getName() + ": on an executor, schedule the rest of the work instead");
  }

  /**
   * nanoTime is this instance's monotonic clock, as its elector reads it.
   *
   * @return the instance's monotonic time in nanoseconds, drift included
   */
  public long nanoTime() {
    return loop.nanoTime();
  }

  /**
   * store is the store this instance elects on.
   *
   * @return the store this elector was built from
   */
  public VirtualStore store() {
    return store;
  }

  @Override
  public ElectorConfig config() {
    return runtime.config();
  }

  @Override
  public void start() {
    runtime.start();
  }

  @Override
  public ElectorState state() {
    return runtime.state();
  }

  @Override
  public boolean isLeader() {
    return runtime.isLeader();
  }

  @Override
  public Optional<LeaderInfo> currentLeader() {
    return runtime.currentLeader();
  }

  @Override
  public ElectorHealth health() {
    return runtime.health();
  }

  @Override
  public Optional<Leadership> leadership() {
    return runtime.leadership();
  }

  @Override
  public CompletionStage<Leadership> whenLeading() {
    return runtime.whenLeading();
  }

  /**
   * awaitLeadership runs virtual time until this instance leads, for at most {@code timeout}
   * of virtual time, and returns its term; empty on timeout or once the elector stopped. On a
   * simulated thread of this instance ({@link #thread}) it waits there in virtual time instead,
   * and an interrupt ends the wait empty with the thread's interrupt flag set.
   *
   * @throws IllegalStateException when called from code the time is running (a listener or a
   *     task), where a wait could never end
   */
  @Override
  public Optional<Leadership> awaitLeadership(Duration timeout) {
    VirtualTime.requireNonNegative(timeout, "timeout");
    if (Thread.currentThread() instanceof SimulatedThread t && t.owner() == this) {
      try {
        return Optional.of(t.await(runtime.whenLeading(), timeout));
      } catch (TimeoutException | ExecutionException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    time.runUntil(() -> valid().isPresent() || runtime.state() == ElectorState.STOPPED, timeout);
    return valid();
  }

  private Optional<Leadership> valid() {
    return runtime.leadership().filter(Leadership::isValid);
  }

  /**
   * runWhileLeader is {@link LeaderElector#runWhileLeader(LeaderTask)} on virtual time: core's
   * implementation, with the task on a simulated thread of this instance (where {@link #sleep}
   * and {@link #await} wait in virtual time and an interrupt wakes them) and every wait of the
   * run (to lead, for the grace) in virtual time. Call it from the thread that drives the time,
   * which runs the time meanwhile, or from a simulated thread of this instance ({@link #thread}).
   *
   * @throws IllegalStateException when called from code the time runs (a listener, a task on an
   *     executor) or from a simulated thread of another instance
   */
  @Override
  public <T> LeaderTaskOutcome<T> runWhileLeader(LeaderTask<T> task) throws InterruptedException {
    return runWhileLeader(task, runtime.config().rpcTimeout());
  }

  /**
   * runWhileLeader is {@link LeaderElector#runWhileLeader(LeaderTask, Duration)} on virtual
   * time, as {@link #runWhileLeader(LeaderTask)} describes: the task is interrupted when the
   * term ends or {@code grace} before the local deadline, and reported when it runs on {@code
   * grace} of virtual time after its interrupt.
   *
   * @throws IllegalStateException when called from code the time runs (a listener, a task on an
   *     executor) or from a simulated thread of another instance
   */
  @Override
  public <T> LeaderTaskOutcome<T> runWhileLeader(LeaderTask<T> task, Duration grace)
      throws InterruptedException {
    return WhileLeader.run(this, task, grace, WhileLeaderHost.of(this));
  }

  @Override
  public CompletionStage<List<dev.leasehold.Participant>> participants() {
    return runtime.participants();
  }

  @Override
  public CompletionStage<LeaderInfo> transferTo(String candidateId) {
    return runtime.transferTo(candidateId);
  }

  @Override
  public void resign() {
    runtime.resign();
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener) {
    return runtime.onLeadershipChanged(listener);
  }

  @Override
  public Subscription onLeadershipChanged(LeadershipListener listener, Executor executor) {
    return runtime.onLeadershipChanged(listener, executor);
  }

  @Override
  public Subscription onRenewal(Consumer<Renewal> listener) {
    return runtime.onRenewal(listener);
  }

  /** close closes the elector (resigning a term it holds), as {@link #closeAsync()} does; idempotent. */
  @Override
  public void close() {
    closeAsync();
  }

  /**
   * closeAsync closes the elector (resigning a term it holds) and shuts its executor down; on
   * an instance that {@link VirtualFaults#crash crashed} it only shuts the executor down.
   * Called from outside the code the time runs (the test thread, or a framework closing its
   * context), it runs virtual time until the close is over and the listeners have heard
   * CLOSED, and returns a completed stage; from code the time runs, it only starts the close.
   */
  @Override
  public CompletionStage<Void> closeAsync() {
    executor.shutdown();
    if (crashed) {
      // A killed process closes nothing: its lease expires in the store.
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> closed = runtime.closeAsync().toCompletableFuture();
    if (!time.isRunning()) {
      long bound = 4 * runtime.config().rpcTimeout().toNanos() + 2_000_000_000L;
      time.runUntil(closed::isDone, Duration.ofNanos(bound));
      // The CLOSED event reaches listeners on the dispatcher just after.
      time.advance(DISPATCH_SLACK);
    }
    return closed;
  }

  @Override
  public String toString() {
    return runtime.config().candidateId() + "@" + runtime.config().electionKey();
  }

  // ---- for the store, the simulation and the faults ----

  /** endThreads ends the simulated threads still waiting in the kit (the test is over). */
  void endThreads() {
    for (SimulatedThread t : threads) {
      t.abandon();
    }
    threads.clear();
  }

  /** threadFailure is the first exception that ended a simulated thread of this instance, or null. */
  String threadFailure() {
    for (SimulatedThread t : threads) {
      if (t.died() != null) {
        return t.getName() + " ended by " + t.died();
      }
    }
    return null;
  }

  void partition(boolean cut) {
    if (crashed) {
      return;
    }
    if (cut) {
      link.cut();
    } else {
      link.heal();
    }
  }

  void pause(boolean paused) {
    if (crashed) {
      return;
    }
    if (paused) {
      loop.pause();
      worker.pause();
    } else {
      loop.resume();
      worker.resume();
    }
  }

  void crash() {
    crashed = true;
    link.cut();
    loop.abandon();
    worker.abandon();
  }

  void drift(double rate) {
    clock.setRate(time.nanoTime(), rate);
    loop.clockChanged();
    worker.clockChanged();
  }

  /**
   * Builder configures a {@link VirtualElector}: the settings of every backend (inherited from
   * {@link ElectorConfig.Settings}), validated as the local backend does (a TTL of whole seconds,
   * at least 1 s). The elector closes with its store.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private final VirtualStore store;
    private Logger log;

    Builder(VirtualStore store) {
      this.store = store;
    }

    /** log is where the elector's runtime logs, instead of its usual logger; for the simulation. */
    Builder log(Logger log) {
      this.log = log;
      return this;
    }

    /**
     * build validates the settings and creates an elector of the store that has not started.
     *
     * @return the elector, not started
     */
    public VirtualElector build() {
      ElectorConfig config = buildConfig(
          Duration.ofSeconds(1), Duration.ofSeconds(1), "the local store grants seconds, as etcd does");
      VirtualElector e = new VirtualElector(store, config, log);
      store.add(e);
      return e;
    }
  }
}
