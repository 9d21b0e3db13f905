package dev.leasehold.test.engine;

import dev.leasehold.runtime.Scheduler;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * SimScheduler is one candidate process's threads in virtual time, behind the runtime's
 * {@link Scheduler} port: what {@code ThreadScheduler} does with two threads, as simulation
 * events.
 *
 * <ul>
 *   <li>{@link #nanoTime()} reads the candidate's drifting {@link SimClock} at the event's true
 *       time.
 *   <li>The event loop runs one task per simulation event, in submission order, so the checks
 *       run between any two tasks, as they could between two tasks of a real loop thread.
 *   <li>A timer fires when the candidate's clock reaches its time, plus the loop's latency; it
 *       then queues its task behind the loop's others, and a cancel before it runs still stops
 *       it ({@code ScheduledThreadPoolExecutor}'s rule). A clock rate change re-arms timers.
 *   <li>The dispatcher is a second queue whose tasks run at later events (a thread's wake-up
 *       later, 1 to 100 µs, rarely up to 20 ms while faults last), so listeners run after the loop
 *       step that published, with other events in between, as on real threads.
 *   <li>{@link #shutdown()} as {@code ThreadScheduler}: queued loop tasks still run, timers do not,
 *       and the dispatcher refuses new tasks once the loop has drained.
 *   <li>A pause (a stop-the-world pause of the process) holds both queues; timers still come
 *       due. A crash ({@link #abandon()}) drops everything, now and later.
 * </ul>
 *
 * <p>Not thread-safe: the simulation's one thread calls it.
 */
public final class SimScheduler implements Scheduler {
  private final EventQueue engine;
  private final SimClock clock;
  private final ArrayDeque<Runnable> loop = new ArrayDeque<>();
  private final ArrayDeque<Runnable> dispatch = new ArrayDeque<>();
  private final LinkedHashSet<Timer> timers = new LinkedHashSet<>();
  private final Executor dispatcher = this::dispatch;
  private boolean loopQueued;
  private boolean dispatchQueued;
  private boolean inLoopTask;
  private boolean onDispatcher;
  private boolean paused;
  private boolean abandoned;
  private boolean shutdown;
  private boolean dispatcherShutdown;

  /** SimScheduler runs a process's threads on {@code engine}'s time, reading {@code clock}. */
  public SimScheduler(EventQueue engine, SimClock clock) {
    this.engine = engine;
    this.clock = clock;
  }

  @Override
  public long nanoTime() {
    return clock.local(engine.now);
  }

  @Override
  public void execute(Runnable task) {
    if (abandoned) {
      return;
    }
    if (shutdown) {
      throw new RejectedExecutionException("event loop shut down");
    }
    loop.add(task);
    wakeLoop();
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    if (abandoned) {
      return () -> { };
    }
    if (shutdown) {
      throw new RejectedExecutionException("event loop shut down");
    }
    Timer t = new Timer(task, nanoTime() + Math.max(0, delayNanos));
    timers.add(t);
    arm(t);
    return t;
  }

  /**
   * worker runs its tasks on the simulated dispatcher, on virtual time, one at a time in order:
   * a check that blocks would block the whole simulation, as a hung listener would.
   */
  @Override
  public ExecutorService worker(String name) {
    return new AbstractExecutorService() {
      private volatile boolean stopped;

      @Override
      public void execute(Runnable task) {
        if (stopped) {
          throw new RejectedExecutionException(name + " shut down");
        }
        dispatcher.execute(task);
      }

      @Override
      public void shutdown() {
        stopped = true;
      }

      @Override
      public List<Runnable> shutdownNow() {
        stopped = true;
        return List.of();
      }

      @Override
      public boolean isShutdown() {
        return stopped;
      }

      @Override
      public boolean isTerminated() {
        return stopped;
      }

      @Override
      public boolean awaitTermination(long timeout, TimeUnit unit) {
        return stopped;
      }
    };
  }

  @Override
  public Executor dispatcher() {
    return dispatcher;
  }

  @Override
  public boolean onDispatcher() {
    return onDispatcher;
  }

  @Override
  public void shutdown() {
    shutdown = true;
    for (Timer t : timers) {
      t.ev.cancelled = true;
    }
    timers.clear();
    if (!inLoopTask && loop.isEmpty()) {
      dispatcherShutdown = true;
    }
  }

  @Override
  public void awaitTermination() {
    // Nothing to wait for: the simulation runs close() as closeAsync() and keeps going.
  }

  /** isPaused is true while a pause holds the process. */
  public boolean isPaused() {
    return paused;
  }

  /** trueAt is the earliest true time, not before now, at which this clock reads {@code local}. */
  public long trueAt(long local) {
    return clock.trueAt(local, engine.now);
  }

  /** isShutdown is true once the runtime shut the loop down (its close is over). */
  public boolean isShutdown() {
    return shutdown;
  }

  /** pause holds both queues until {@link #resume()}; timers keep coming due. */
  public void pause() {
    paused = true;
  }

  public void resume() {
    paused = false;
    wakeLoop();
    wakeDispatch();
  }

  /** abandon is a crash: every queued and future task is dropped. */
  public void abandon() {
    abandoned = true;
    loop.clear();
    dispatch.clear();
    for (Timer t : timers) {
      t.ev.cancelled = true;
    }
    timers.clear();
  }

  /** clockChanged re-arms the timers after the clock's rate changed. */
  public void clockChanged() {
    for (Timer t : timers) {
      t.ev.cancelled = true;
      arm(t);
    }
  }

  /** pendingTimers is the number of armed timers (for the trace). */
  public int pendingTimers() {
    return timers.size();
  }

  private void arm(Timer t) {
    long due = clock.trueAt(t.dueLocal, engine.now) + engine.timerLatency();
    t.ev = engine.at(due, () -> fire(t));
  }

  private void fire(Timer t) {
    if (!timers.remove(t)) {
      return;
    }
    loop.add(() -> {
      if (!t.cancelled) {
        t.task.run();
      }
    });
    wakeLoop();
  }

  private void wakeLoop() {
    if (!loopQueued && !paused && !abandoned && !loop.isEmpty()) {
      loopQueued = true;
      engine.at(engine.now, this::runLoopTask);
    }
  }

  private void runLoopTask() {
    loopQueued = false;
    if (paused || abandoned) {
      return;
    }
    Runnable task = loop.poll();
    if (task != null) {
      inLoopTask = true;
      try {
        task.run();
      } finally {
        inLoopTask = false;
      }
    }
    if (shutdown && loop.isEmpty()) {
      dispatcherShutdown = true; // the loop has terminated
    }
    wakeLoop();
  }

  private void dispatch(Runnable task) {
    if (abandoned) {
      return;
    }
    if (dispatcherShutdown) {
      throw new RejectedExecutionException("dispatcher shut down");
    }
    dispatch.add(task);
    wakeDispatch();
  }

  private void wakeDispatch() {
    if (!dispatchQueued && !paused && !abandoned && !dispatch.isEmpty()) {
      dispatchQueued = true;
      long wakeUp = 1_000 + engine.rnd.nextLong(100_000);
      if (!engine.quiet && engine.rnd.nextInt(100) == 0) {
        wakeUp += engine.rnd.nextLong(20 * EventQueue.MS);
      }
      engine.at(engine.now + wakeUp, this::runDispatchTask);
    }
  }

  private void runDispatchTask() {
    dispatchQueued = false;
    if (paused || abandoned) {
      return;
    }
    Runnable task = dispatch.poll();
    if (task != null) {
      onDispatcher = true;
      try {
        task.run();
      } finally {
        onDispatcher = false;
      }
    }
    wakeDispatch();
  }

  /** Timer is one armed timer: its local due time, and the event that fires it. */
  private final class Timer implements Cancellable {
    final Runnable task;
    final long dueLocal;
    EventQueue.Ev ev;
    boolean cancelled;

    Timer(Runnable task, long dueLocal) {
      this.task = task;
      this.dueLocal = dueLocal;
    }

    @Override
    public void cancel() {
      cancelled = true;
      if (timers.remove(this)) {
        ev.cancelled = true;
      }
    }
  }
}
