package dev.leasehold.spec.sim;

import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Simulation.Violation;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Engine is one simulation's virtual time: a queue of events in true time (ties run in the
 * order they were queued), the run-time randomness every part draws from, the trace, the
 * counters, and the first violation found.
 *
 * <p>Checks that run inside the runtime's callbacks (the port, the machine, a listener) must
 * not throw: the runtime catches and logs what its callbacks throw, as it should. They call
 * {@link #fail} instead, and the run loop throws the violation once the event is over.
 *
 * <p>Not thread-safe: one thread runs one simulation.
 */
final class Engine {
  static final long MS = Scenario.MS;

  /** Ev is one queued event; cancelled ones are skipped. */
  static final class Ev implements Comparable<Ev> {
    final long t;
    final long seq;
    final Runnable r;
    boolean cancelled;

    Ev(long t, long seq, Runnable r) {
      this.t = t;
      this.seq = seq;
      this.r = r;
    }

    @Override
    public int compareTo(Ev o) {
      int c = Long.compare(t, o.t);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private final PriorityQueue<Ev> queue = new PriorityQueue<>();
  private final EnumSet<Inv> checked;
  private final Trace trace;
  private long seq;
  private Violation pending;
  /** now is the true time of the event being run. */
  long now;
  /** quiet is true once faults are over: the network is fast and reliable, timers punctual. */
  boolean quiet;
  /** rnd is the run-time randomness: message fates, delays, latencies. */
  final SplittableRandom rnd;
  final Stats stats = new Stats();
  long steps;

  Engine(long runSeed, EnumSet<Inv> checked, int traceLines) {
    this.rnd = new SplittableRandom(runSeed);
    this.checked = checked;
    this.trace = traceLines > 0 ? new Trace(traceLines) : null;
  }

  /** at queues {@code r} at true time {@code t} (not before now). */
  Ev at(long t, Runnable r) {
    Ev e = new Ev(Math.max(t, now), seq++, r);
    queue.add(e);
    return e;
  }

  /** next removes the next event that is not cancelled, or returns null. */
  Ev next() {
    Ev e;
    while ((e = queue.poll()) != null) {
      if (!e.cancelled) {
        return e;
      }
    }
    return null;
  }

  boolean checks(Inv inv) {
    return checked.contains(inv);
  }

  /** fail records a violation of a checked invariant; the first one ends the run. */
  void fail(Inv inv, String message) {
    if (checked.contains(inv) && pending == null) {
      pending = new Violation(inv, now, message);
    }
  }

  /** throwPending throws the violation recorded during the last event, if any. */
  void throwPending() {
    if (pending != null) {
      throw pending;
    }
  }

  boolean tracing() {
    return trace != null;
  }

  void note(String s) {
    if (trace != null) {
      trace.add(Simulation.fmt(now) + "  " + s);
    }
  }

  List<String> traceLines() {
    return trace == null ? List.of() : trace.lines();
  }

  /** timerLatency is how late a loop thread runs a due timer: up to 0.2 ms, rarely 20 ms more. */
  long timerLatency() {
    long latency = rnd.nextLong(200_000);
    if (!quiet && rnd.nextInt(100) == 0) {
      latency += rnd.nextLong(20 * MS);
    }
    return latency;
  }

  /** Trace keeps the last lines of a run. */
  static final class Trace {
    private final String[] ring;
    private long count;

    Trace(int capacity) {
      ring = new String[capacity];
    }

    void add(String line) {
      ring[(int) (count++ % ring.length)] = line;
    }

    List<String> lines() {
      List<String> out = new ArrayList<>();
      long from = Math.max(0, count - ring.length);
      for (long i = from; i < count; i++) {
        out.add(ring[(int) (i % ring.length)]);
      }
      return out;
    }
  }
}
