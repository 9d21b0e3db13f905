package dev.leasehold.spec.sim.session;

import dev.leasehold.test.engine.EventQueue;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.spec.sim.SimLog;
import dev.leasehold.spec.sim.session.SessionChecks.Inv;
import dev.leasehold.spec.sim.session.SessionChecks.Violation;
import dev.leasehold.spec.sim.session.SessionScenario.Fault;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.event.Level;

/**
 * SessionSim runs one {@link SessionScenario} of sessions (PROTOCOL.md §11): each process core's
 * real {@code SessionLease} and {@code SessionElection}s in core's real {@code ElectorRuntime}s
 * ({@link SessionProc}), on simulated threads and clocks, through a simulated client
 * ({@link SimHub}, {@link SimElectionPort}) and network ({@link SessionNet}) to a simulated etcd
 * ({@link SessionEtcd}), in virtual time. The checks ({@link SessionChecks}) run after every
 * event; the first violation ends the run.
 *
 * <p>Deterministic: everything random is drawn from the scenario's seed. Not thread-safe: one
 * thread runs one simulation.
 */
final class SessionSim extends EventQueue {
  static final long MS = SessionScenario.MS;
  static final long S = SessionScenario.S;

  /** Result is one run's outcome, with the trace's last lines. */
  record Result(SessionScenario scenario, Violation violation, long events, long longestGap,
      Map<String, Long> counts, List<String> trace) {
    boolean ok() {
      return violation == null;
    }
  }

  final SessionScenario sc;
  final SessionEtcd etcd;
  final SessionNet net;
  final SessionChecks checks;
  final SimHub.Mutation hubMutation;
  private final List<SessionProc> procs = new ArrayList<>();
  private final SessionProc[] current;
  private final int[] incarnations;
  private final ArrayDeque<String> trace = new ArrayDeque<>();
  private final int traceLines;
  private final Map<String, Long> counts = new HashMap<>();

  SessionSim(SessionScenario sc, SimHub.Mutation hubMutation, int traceLines) {
    super(sc.seed * 31 + 7);
    this.sc = sc;
    this.hubMutation = hubMutation;
    this.traceLines = traceLines;
    this.net = new SessionNet(this, sc.n);
    this.etcd = new SessionEtcd(this, net::changed, 1 + rnd.nextLong(1000), 0x5E55_0000_0000L + rnd.nextLong(1L << 32));
    this.checks = new SessionChecks(this);
    this.current = new SessionProc[sc.n];
    this.incarnations = new int[sc.n];
  }

  static String fmt(long t) {
    return String.format("%.6fs", t / 1e9);
  }

  /** count adds one to the counter {@code what} (what the run exercised). */
  void count(String what) {
    counts.merge(what, 1L, Long::sum);
  }

  void note(String s) {
    if (traceLines > 0) {
      if (trace.size() == traceLines) {
        trace.poll();
      }
      trace.add(fmt(now) + "  " + s);
    }
  }

  Result run() {
    Violation v = null;
    long events = 0;
    SimLog.install(this::logged);
    try {
      setUp();
      Ev e;
      while ((e = next()) != null && e.time() <= sc.endAt) {
        now = e.time();
        e.run();
        events++;
        checks.throwPending();
        checks.check(procs, sc.keys);
      }
    } catch (Violation x) {
      v = x;
    } catch (RuntimeException x) {
      StringBuilder b = new StringBuilder(x.toString());
      for (StackTraceElement el : x.getStackTrace()) {
        if (el.getClassName().startsWith("dev.leasehold")) {
          b.append("\n    at ").append(el);
        }
      }
      v = new Violation(Inv.NO_EXCEPTION, now, b.toString());
    } finally {
      SimLog.install(null);
    }
    if (v != null) {
      note("VIOLATION " + v.getMessage());
    }
    return new Result(sc, v, events, checks.longestGap, new TreeMap<>(counts), List.copyOf(trace));
  }

  private void logged(Level level, String logger, String message, Throwable t) {
    note(level + " " + message + (t == null ? "" : " " + t));
    if (level == Level.ERROR) {
      checks.fail(Inv.NO_EXCEPTION, "the runtime logged: " + message + (t == null ? "" : " " + t));
    }
  }

  private void setUp() {
    for (int i = 0; i < sc.n; i++) {
      SessionProc p = spawn(i);
      at(sc.startAt[i], p::start);
    }
    sweep(rnd.nextLong(500 * MS));
    for (Fault f : sc.faults) {
      at(f.at(), () -> apply(f));
    }
    at(sc.quietAt, this::beQuiet);
    at(sc.closeAt, () -> {
      note("CLOSE ALL");
      for (SessionProc p : current) {
        if (!p.crashed) {
          busy(p, sc.busyAtClose[p.slot]);
          p.closeAsync(this);
        }
      }
    });
    long rpc = sc.configs[0].rpcTimeout().toNanos();
    at(sc.closeAt + 4 * rpc + 2 * S, () -> checks.closesDone(List.of(current)));
    at(sc.endAt, checks::nothingLeft);
  }

  private SessionProc spawn(int slot) {
    int inc = incarnations[slot]++;
    String name = "p" + slot + (inc == 0 ? "" : "#" + inc);
    SessionProc p = new SessionProc(this, slot, name, sc.configs[slot], sc.keys, rnd.nextLong(),
        new SimClock(rnd.nextLong(1L << 40), sc.rates[slot]));
    current[slot] = p;
    procs.add(p);
    note("spawn " + name);
    return p;
  }

  private void sweep(long t) {
    at(t, () -> {
      etcd.sweep();
      sweep(now + 500 * MS);
    });
  }

  private void apply(Fault f) {
    if (quiet) {
      return;
    }
    SessionProc p = current[f.slot()];
    count("fault " + f.kind());
    note("FAULT " + f.kind() + " " + p + (f.length() > 0 ? " for " + f.length() / MS + "ms" : ""));
    switch (f.kind()) {
      case PARTITION -> net.partitionedUntil[f.slot()] = Math.max(net.partitionedUntil[f.slot()], now + f.length());
      case PAUSE -> {
        if (!p.crashed && !p.paused) {
          p.pause();
          at(now + f.length(), () -> { if (p.paused) { p.resume(); } });
        }
      }
      case CRASH -> {
        if (!p.crashed) {
          p.crash();
          at(now + f.length(), () -> restart(f.slot()));
        }
      }
      case LEADER_LOSS -> {
        if (etcd.hasLeader) {
          etcd.loseLeader();
          net.leaderLost();
          at(now + f.length(), this::elect);
        }
      }
      case STALL_WATCH -> {
        if (p.hub.watcher() != null) {
          p.hub.watcher().stall();
        }
      }
      case SLOW -> {
        net.slowUntil[f.slot()] = now + f.length();
        net.slowMax[f.slot()] = sc.configs[0].rpcTimeout().toNanos() * (1 + rnd.nextInt(3)) / 2;
      }
      case LOSSY -> net.lossyUntil = Math.max(net.lossyUntil, now + f.length());
      case BUSY_ELECTIONS -> busy(p, f.length());
      case REOPEN -> {
        if (!p.crashed) {
          p.reopen(sc.keys.get(f.key()), f.length());
        }
      }
      case RESIGN -> {
        if (!p.crashed) {
          p.elections.get(sc.keys.get(f.key())).resign();
        }
      }
    }
  }

  /** busy holds up the process's elections' loop (not its lease's) for {@code length}. */
  private void busy(SessionProc p, long length) {
    if (length > 0 && !p.crashed && !p.paused) {
      p.electionsLoop.pause();
      at(now + length, () -> { if (!p.paused && !p.crashed) { p.electionsLoop.resume(); } });
    }
  }

  private void elect() {
    if (!etcd.hasLeader) {
      etcd.elect();
      note("etcd: new leader, term " + etcd.term);
    }
  }

  private void restart(int slot) {
    if (current[slot].crashed) {
      SessionProc p = spawn(slot);
      p.start();
    }
  }

  /** beQuiet ends the faults: the network heals, paused processes resume, crashed ones come back, etcd has a leader. */
  private void beQuiet() {
    quiet = true;
    note("QUIET: faults over");
    for (int i = 0; i < sc.n; i++) {
      net.partitionedUntil[i] = 0;
      net.slowUntil[i] = 0;
      if (current[i].paused) {
        current[i].resume();
      }
      restart(i);
    }
    net.lossyUntil = 0;
    elect();
  }
}
