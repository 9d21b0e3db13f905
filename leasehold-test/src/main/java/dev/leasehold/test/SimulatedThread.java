package dev.leasehold.test;

import dev.leasehold.runtime.Scheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * SimulatedThread is a thread of an instance whose code may block the way ordinary code does:
 * {@link LeaderContext#sleep} and {@link LeaderContext#await} wait in virtual time. It is a real
 * thread, but it runs only while the thread that drives the {@link VirtualTime} hands it the
 * turn, one of them at a time: the driver resumes it at a virtual instant and waits until it
 * blocks in the kit again (or ends), so a run stays deterministic. Its turns come through the
 * instance's own thread, so a pause of the instance holds it too.
 *
 * <p>{@link #interrupt()} from code the time runs (a listener that hears the term end) wakes
 * the thread at that instant: a {@code sleep} or {@code await} in it throws {@link
 * InterruptedException}, as on a real thread. What it cannot do: a real {@code Thread.sleep}
 * or a blocking wait outside the kit holds the whole simulation (the driver gives up after
 * {@link #REAL_TIME_LIMIT} of real time and fails the run).
 *
 * <p>Thread-safe where it has to be: its state passes between the driver and the thread with
 * the turn (two semaphores); only one of them runs at a time.
 */
final class SimulatedThread extends Thread {
  /** REAL_TIME_LIMIT is how long, in real time, the driver waits for a turn to end. */
  static final Duration REAL_TIME_LIMIT = Duration.ofSeconds(10);

  private final VirtualElector owner;
  private final Scheduler turns;
  private final Runnable body;
  private final Semaphore go = new Semaphore(0);
  private final Semaphore back = new Semaphore(0);
  // Passed with the turn.
  private Scheduler.Cancellable wake;
  private boolean parked;
  // Counts the waits, so a late completion cannot wake a later one.
  private long waits;
  private boolean abandoned;
  private boolean finished;
  private Throwable died;

  SimulatedThread(VirtualElector owner, Scheduler turns, String name, Runnable body) {
    super(name);
    this.owner = owner;
    this.turns = turns;
    this.body = body;
    setDaemon(true);
  }

  /** begin starts the thread; its first turn comes at the current virtual instant. */
  void begin() {
    super.start();
    parked = true;
    wake = turns.schedule(this::turn, 0);
  }

  /** start is {@link #begin()}'s job: a simulated thread is started by the kit. */
  @Override
  public synchronized void start() {
    throw new IllegalStateException("a simulated thread is started by VirtualElector.thread");
  }

  /** owner is the instance the thread belongs to. */
  VirtualElector owner() {
    return owner;
  }

  /** died is what ended the thread's body, if it threw. */
  Throwable died() {
    return died;
  }

  boolean finished() {
    return finished;
  }

  /**
   * interrupt sets the interrupt flag and, from code the time runs while this thread waits in
   * the kit, wakes it at this instant.
   */
  @Override
  public void interrupt() {
    super.interrupt();
    if (Thread.currentThread() != this && parked && !finished) {
      reschedule(0);
    }
  }

  /** abandon ends a thread whose simulation is over: its wait in the kit throws, and it exits. */
  void abandon() {
    if (finished || !isAlive()) {
      return;
    }
    abandoned = true;
    if (wake != null) {
      wake.cancel();
    }
    go.release();
    try {
      back.tryAcquire(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the driver's side ----

  /** turn hands the thread the turn and waits until it blocks in the kit again, or ends. */
  private void turn() {
    if (finished || abandoned) {
      return;
    }
    wake = null;
    go.release();
    boolean returned;
    try {
      returned = back.tryAcquire(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      returned = false;
    }
    if (!returned) {
      abandoned = true;
      throw new IllegalStateException(getName() + " did not block in the kit or end within "
          + REAL_TIME_LIMIT.toSeconds() + " s of real time: it sleeps or waits outside the kit"
          + " (Thread.sleep, Future.get, a lock); use LeaderContext.sleep and await");
    }
  }

  private void reschedule(long delayNanos) {
    if (wake != null) {
      wake.cancel();
    }
    wake = turns.schedule(this::turn, delayNanos);
  }

  // ---- the thread's side ----

  @Override
  public void run() {
    go.acquireUninterruptibly();
    parked = false;
    try {
      if (!abandoned) {
        body.run();
      }
    } catch (Abandoned gone) {
      // The simulation ended while it waited.
    } catch (Throwable t) {
      died = t;
    } finally {
      finished = true;
      back.release();
    }
  }

  /** sleep waits {@code d} of the instance's time. */
  void sleep(Duration d) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("sleep interrupted");
    }
    reschedule(Math.max(0, d.toNanos()));
    park();
    if (Thread.interrupted()) {
      throw new InterruptedException("sleep interrupted");
    }
  }

  /** await waits until {@code stage} completes, for at most {@code timeout} of the instance's time. */
  <T> T await(CompletionStage<T> stage, Duration timeout)
      throws InterruptedException, TimeoutException, ExecutionException {
    if (Thread.interrupted()) {
      throw new InterruptedException("await interrupted");
    }
    CompletableFuture<T> f = stage.toCompletableFuture();
    if (!f.isDone()) {
      reschedule(Math.max(0, timeout.toNanos()));
      // Completions happen in events, on the driver, while this thread is parked.
      long thisWait = waits + 1;
      f.whenComplete((v, e) -> {
        if (parked && !finished && waits == thisWait) {
          reschedule(0);
        }
      });
      park();
      if (Thread.interrupted()) {
        throw new InterruptedException("await interrupted");
      }
      if (!f.isDone()) {
        throw new TimeoutException("not complete after " + timeout + " of virtual time");
      }
    }
    return f.get();
  }

  /** park gives the turn back and waits for the next one. */
  private void park() {
    waits++;
    parked = true;
    back.release();
    go.acquireUninterruptibly();
    parked = false;
    if (abandoned) {
      throw new Abandoned();
    }
  }

  /** Abandoned unwinds a thread whose simulation is over. */
  private static final class Abandoned extends Error {
    private static final long serialVersionUID = 1L;

    Abandoned() {
      super("simulation over", null, false, false);
    }
  }
}
