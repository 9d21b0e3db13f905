package dev.leasehold.jdbc;

import dev.leasehold.runtime.Scheduler;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * SqlSimScheduler is one candidate's threads in the SQL simulation's virtual time, as the etcd
 * simulation's SimScheduler does it (a copy, since that one is package-private there): a
 * drifting clock (rate fixed per process), a loop running one task per event, timers that
 * fire when the local clock reaches them plus a latency, a dispatcher whose tasks run at later
 * events, pause (both queues held, timers still come due) and crash (everything dropped).
 * Not thread-safe.
 */
final class SqlSimScheduler implements Scheduler {
  private final SqlSim sim;
  final double rate;
  final long offset;
  private final ArrayDeque<Runnable> loop = new ArrayDeque<>();
  private final ArrayDeque<Runnable> dispatch = new ArrayDeque<>();
  private final LinkedHashSet<Timer> timers = new LinkedHashSet<>();
  private boolean loopQueued;
  private boolean dispatchQueued;
  private boolean onDispatcher;
  boolean paused;
  boolean abandoned;
  private boolean shutdown;
  private boolean dispatcherShutdown;

  SqlSimScheduler(SqlSim sim, double rate, long offset) {
    this.sim = sim;
    this.rate = rate;
    this.offset = offset;
  }

  long local(long t) {
    return offset + (long) Math.floor(t * rate);
  }

  long trueAt(long l) {
    long t = (long) Math.ceil((l - offset) / rate);
    while (local(t) < l) {
      t++;
    }
    return Math.max(t, sim.now);
  }

  @Override
  public long nanoTime() {
    return local(sim.now);
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
    Timer t = new Timer(task);
    timers.add(t);
    long due = trueAt(nanoTime() + Math.max(0, delayNanos)) + sim.latency();
    t.ev = sim.at(due, () -> {
      if (timers.remove(t)) {
        loop.add(() -> {
          if (!t.cancelled) {
            t.task.run();
          }
        });
        wakeLoop();
      }
    });
    return t;
  }

  @Override
  public Executor dispatcher() {
    return this::dispatch;
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
    if (loop.isEmpty()) {
      dispatcherShutdown = true;
    }
  }

  @Override
  public void awaitTermination() {}

  void pause() {
    paused = true;
  }

  void resume() {
    paused = false;
    wakeLoop();
    wakeDispatch();
  }

  void abandon() {
    abandoned = true;
    for (Timer t : timers) {
      t.ev.cancelled = true;
    }
    timers.clear();
    loop.clear();
    dispatch.clear();
  }

  private void wakeLoop() {
    if (!loopQueued && !paused && !abandoned && !loop.isEmpty()) {
      loopQueued = true;
      sim.at(sim.now, this::runLoopTask);
    }
  }

  private void runLoopTask() {
    loopQueued = false;
    if (paused || abandoned) {
      return;
    }
    Runnable task = loop.poll();
    if (task != null) {
      task.run();
    }
    if (shutdown && loop.isEmpty()) {
      dispatcherShutdown = true;
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
      sim.at(sim.now + 1_000 + sim.rnd.nextLong(100_000), this::runDispatchTask);
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

  private final class Timer implements Cancellable {
    final Runnable task;
    SqlSim.Ev ev;
    boolean cancelled;

    Timer(Runnable task) {
      this.task = task;
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
