package dev.leasehold.spec.sim;

import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Simulation.Violation;
import dev.leasehold.test.engine.EventQueue;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Engine is one etcd simulation's {@link EventQueue} (virtual time, run-time randomness) with
 * the trace, the counters, and the first violation found.
 *
 * <p>Checks that run inside the runtime's callbacks (the port, the machine, a listener) must
 * not throw: the runtime catches and logs what its callbacks throw, as it should. They call
 * {@link #fail} instead, and the run loop throws the violation once the event is over.
 *
 * <p>Not thread-safe: one thread runs one simulation.
 */
final class Engine extends EventQueue {
  private final EnumSet<Inv> checked;
  private final Trace trace;
  private Violation pending;
  final Stats stats = new Stats();
  long steps;

  Engine(long runSeed, EnumSet<Inv> checked, int traceLines) {
    super(runSeed);
    this.checked = checked;
    this.trace = traceLines > 0 ? new Trace(traceLines) : null;
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
