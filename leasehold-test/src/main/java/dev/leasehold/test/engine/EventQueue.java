package dev.leasehold.test.engine;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * EventQueue is a simulation's virtual time, shared by the etcd simulation ({@link Engine}) and
 * the SQL one: a queue of events in true time (ties run in the order they were queued), the
 * run-time randomness every part draws from, and the quiet flag that ends the fault phase.
 *
 * <p>Not thread-safe: one thread runs one simulation.
 */
public class EventQueue {
  /** MS is one millisecond of true time, in nanoseconds. */
  public static final long MS = 1_000_000L;

  /** Ev is one queued event; cancelled ones are skipped. */
  public static final class Ev implements Comparable<Ev> {
    final long t;
    final long seq;
    final Runnable r;
    /** cancelled events are dropped when they come due. */
    public boolean cancelled;

    Ev(long t, long seq, Runnable r) {
      this.t = t;
      this.seq = seq;
      this.r = r;
    }

    /** time is the event's true time. */
    public long time() {
      return t;
    }

    /** run runs the event's task. */
    public void run() {
      r.run();
    }

    @Override
    public int compareTo(Ev o) {
      int c = Long.compare(t, o.t);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private final PriorityQueue<Ev> queue = new PriorityQueue<>();
  private long seq;
  /** now is the true time of the event being run. */
  public long now;
  /** quiet is true once faults are over: the network is fast and reliable, timers punctual. */
  public boolean quiet;
  /** rnd is the run-time randomness: message fates, delays, latencies. */
  public final SplittableRandom rnd;

  /** EventQueue draws all its randomness from {@code seed}. */
  public EventQueue(long seed) {
    this.rnd = new SplittableRandom(seed);
  }

  /** at queues {@code r} at true time {@code t} (not before now). */
  public final Ev at(long t, Runnable r) {
    Ev e = new Ev(Math.max(t, now), seq++, r);
    queue.add(e);
    return e;
  }

  /** next removes the next event that is not cancelled, or returns null. */
  public final Ev next() {
    Ev e;
    while ((e = queue.poll()) != null) {
      if (!e.cancelled) {
        return e;
      }
    }
    return null;
  }

  /** timerLatency is how late a loop thread runs a due timer: up to 0.2 ms, rarely 20 ms more. */
  public final long timerLatency() {
    long latency = rnd.nextLong(200_000);
    if (!quiet && rnd.nextInt(100) == 0) {
      latency += rnd.nextLong(20 * MS);
    }
    return latency;
  }
}
