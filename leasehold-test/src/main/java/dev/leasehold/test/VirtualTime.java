package dev.leasehold.test;

import dev.leasehold.test.engine.EventQueue;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/**
 * VirtualTime is the time of a test: a queue of events in virtual time that the test thread
 * runs when it calls {@link #advance}, {@link #runUntil} or {@link #await}. Everything built on
 * it (a {@link VirtualStore}, its electors' event loops and dispatchers, the
 * {@link VirtualElector#executor() executors} that run the user's code) runs as events on the
 * calling thread, one at a time, so a TTL of 5 s passes in microseconds of real time and a run
 * is the same every time for the same seed.
 *
 * <p>What runs on it: the electors' real runtime and protocol machine, the store's lease
 * expiry, timers, listener calls, tasks given to a virtual executor, and the instances'
 * simulated threads ({@link VirtualElector#thread}), whose {@code sleep} and {@code await} wait
 * in virtual time. What does not: threads the code under test starts itself, real sleeps, and
 * other blocking waits (a {@code Future.get()} inside a listener would wait for an event that
 * only this thread can run). Block on the test thread through {@link #await}, or through the
 * electors' own {@link VirtualElector#awaitLeadership} and {@link VirtualElector#close}, which
 * run virtual time while they wait.
 *
 * <p>Not thread-safe: one test thread drives it; the code it runs must not call it back.
 */
public final class VirtualTime {
  /** EPOCH is what {@link #clock()} reads at the start: a fixed instant, for repeatable runs. */
  public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  private final EventQueue queue;
  private final long seed;
  private boolean running;

  private VirtualTime(long seed) {
    this.seed = seed;
    this.queue = new EventQueue(seed);
  }

  /**
   * create starts virtual time at zero with seed 1: the same run every time.
   *
   * @return virtual time at zero, seed 1
   */
  public static VirtualTime create() {
    return seeded(1);
  }

  /**
   * seeded starts virtual time at zero; {@code seed} decides every random choice made on it
   * (timer latencies, thread wake-ups, the electors' jitter).
    *
    * @param seed the seed of every random choice
    * @return virtual time at zero
   */
  public static VirtualTime seeded(long seed) {
    return new VirtualTime(seed);
  }

  /**
   * seed is the seed this time draws its randomness from.
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * elapsed is the virtual time since the start.
   *
   * @return the time run so far; never negative
   */
  public Duration elapsed() {
    return Duration.ofNanos(queue.now);
  }

  /**
   * clock is a {@link Clock} in UTC that reads {@link #EPOCH} plus {@link #elapsed()}.
   *
   * @return the virtual wall clock
   */
  public Clock clock() {
    return new Virtual(ZoneOffset.UTC);
  }

  /**
   * advance runs every event due within {@code duration}, in time order, and leaves the time
   * {@code duration} later.
   *
    * @param duration how far to run the time; not negative
   * @throws IllegalStateException when called from code the time is running
   */
  public void advance(Duration duration) {
    runUntil(() -> false, duration);
  }

  /**
   * runUntil runs events in time order until {@code condition} holds (checked before the first
   * and after each event) or {@code max} has passed, and returns whether it holds. On false the
   * time is {@code max} later.
   *
    * @param condition checked on the calling thread between events
    * @param max the most virtual time to run
    * @return true when the condition held; false when {@code max} ran out first
   * @throws IllegalStateException when called from code the time is running
   */
  public boolean runUntil(BooleanSupplier condition, Duration max) {
    Objects.requireNonNull(condition, "condition");
    requireNonNegative(max, "max");
    if (running) {
      throw new IllegalStateException(
          "VirtualTime is already running events on this thread: code run by virtual time must"
              + " not advance it (schedule a task on an executor instead)");
    }
    if (condition.getAsBoolean()) {
      return true;
    }
    running = true;
    long until = queue.now + max.toNanos();
    boolean[] reached = new boolean[1];
    EventQueue.Ev end = queue.at(until, () -> reached[0] = true);
    try {
      EventQueue.Ev e;
      while ((e = queue.next()) != null) {
        queue.now = e.time();
        e.run();
        if (reached[0]) {
          return condition.getAsBoolean();
        }
        if (condition.getAsBoolean()) {
          end.cancelled = true;
          return true;
        }
      }
      throw new IllegalStateException("the event queue lost its end marker");
    } finally {
      running = false;
    }
  }

  /**
   * await runs virtual time until {@code stage} completes, for at most {@code max}, and returns
   * its value.
   *
    * @param <T> the stage's value type
    * @param stage what to wait for
    * @param max the most virtual time to run
    * @return the stage's value
   * @throws AssertionError when {@code max} passed first
   * @throws CompletionException with the stage's failure as its cause when it failed
   */
  public <T> T await(CompletionStage<T> stage, Duration max) {
    CompletableFuture<T> f = stage.toCompletableFuture();
    if (!runUntil(f::isDone, max)) {
      throw new AssertionError("not complete after " + max + " of virtual time");
    }
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** isRunning is true while this thread is inside {@link #runUntil}. */
  boolean isRunning() {
    return running;
  }

  /** thread is a new simulated thread (its own queue of tasks) on {@code clock}. */
  SimScheduler thread(SimClock clock) {
    return new SimScheduler(queue, clock);
  }

  /** nanoTime is the true time, in nanoseconds since the start. */
  long nanoTime() {
    return queue.now;
  }

  /** at queues {@code task} at true time {@code nanos}. */
  EventQueue.Ev at(long nanos, Runnable task) {
    return queue.at(nanos, task);
  }

  /** random draws from the run's randomness. */
  SplittableRandom random() {
    return queue.rnd;
  }

  static Duration requireNonNegative(Duration d, String field) {
    if (d == null) {
      throw new IllegalArgumentException(field + " must be set, but was null");
    }
    if (d.isNegative()) {
      throw new IllegalArgumentException(field + " must be >= 0, but was " + d);
    }
    return d;
  }

  /** Virtual is {@link #clock()}: EPOCH plus the elapsed virtual time. */
  private final class Virtual extends Clock {
    private final ZoneId zone;

    Virtual(ZoneId zone) {
      this.zone = zone;
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    @Override
    public Clock withZone(ZoneId z) {
      return new Virtual(z);
    }

    @Override
    public Instant instant() {
      return EPOCH.plusNanos(queue.now);
    }
  }
}
