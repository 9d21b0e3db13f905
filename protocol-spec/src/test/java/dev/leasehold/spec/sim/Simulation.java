package dev.leasehold.spec.sim;

import dev.leasehold.spec.sim.Scenario.Fault;
import dev.leasehold.spec.sim.Stats.Stat;
import dev.leasehold.test.engine.EventQueue;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.util.EnumSet;
import java.util.List;
import org.slf4j.event.Level;

/**
 * Simulation runs one {@link Scenario}: N candidate processes, each core's real
 * {@code ElectorRuntime} running core's real {@code ElectionMachine} ({@link Proc}), on simulated
 * threads and clocks ({@link SimScheduler}), talking through a simulated etcd client
 * ({@link SimPort}) over a network that delays, loses and reorders messages
 * ({@link SimNetwork}) to a simulated etcd ({@link SimEtcd}, {@link SimStore}), in virtual time.
 * The runtime's own policy (timers, RPC timeouts, lease release retries, term handles, event
 * delivery, the close sequence) is the code under test; the simulation adds only the world
 * around it, its faults, and the checks ({@link Checker}, {@link Pairing}).
 *
 * <p>The checks run after every simulation event; the first violation ends the run.
 *
 * <p>Deterministic: everything random is drawn from the scenario's seed; iteration orders are
 * fixed. Not thread-safe: one thread runs one simulation.
 */
final class Simulation {
  static final long MS = Scenario.MS;
  static final long S = Scenario.S;

  /** Inv names the checked properties. */
  enum Inv {
    /**
     * At most one candidate leads: {@code isLeader()}, or a {@code Leadership} it handed out
     * still {@code isValid()} (terms an operator cut short excused).
     */
    NO_OVERLAP,
    /**
     * Each ELECTED token is greater than every earlier one (a term whose key an operator deleted
     * while its CAS reply was in flight is excused, as for NO_OVERLAP).
     */
    FENCING_MONOTONIC,
    /**
     * A leader (as for NO_OVERLAP) has K bound to its lease, with its token as K's mod revision
     * (a campaign's create, a handover's put).
     */
    MASTER_OWNS_KEY,
    /**
     * Every lease a machine holds (MASTER's, CANDIDATE's or a follower's standby lease) exists in
     * the store while the machine's clock is before its deadline, and etcd's expiry of it is no
     * earlier than the true time at which that deadline passes: the deadline formula of §4.1.
     */
    HELD_LEASE_OUTLIVES_DEADLINE,
    /**
     * Per elector, as its listener sees it: exactly the published events, ELECTED then one event
     * leaving MASTER, the term's Leadership invalid and isLeader() false when the loss arrives.
     */
    EVENT_PAIRING,
    /**
     * A Leadership a listener was given says isValid() only while isLeader() is true and
     * leadership() returns that same handle.
     */
    LEADERSHIP_AGREES_WITH_IS_LEADER,
    /** From quietAt, no stretch without a leader lasts longer than the scenario's liveness bound. */
    LIVENESS,
    /**
     * A MASTER elected once faults have stopped and every call sent before that has resolved
     * (quietAt + rpcTimeout) keeps leading until close, unless a candidate of a higher priority
     * preempts it (with preemptAfter).
     */
    QUIET_STABILITY,
    /**
     * A lease the runtime began releasing is gone from etcd within rpcTimeout + backoffMax of the
     * end of faults (or of the release, if later), unless the runtime may have given up by then
     * (2 × leaseTtl), or it closed or crashed.
     */
    RELEASED_LEASE_REVOKED,
    /** Shortly after close, K is gone unless bound to a crashed candidate's lease. */
    CLOSE_REMOVES_KEY,
    /** Every closeAsync() of a live candidate completes (within 3 × rpcTimeout once quiet). */
    CLOSE_COMPLETES,
    /**
     * Within TTL after close (plus sweep and an in-flight grant), no lease and no key remain, K
     * nor participant key.
     */
    NO_LEASE_LEFT_BEHIND,
    /** Nothing throws: not the simulation, and nothing the runtime catches and logs as an error. */
    NO_EXCEPTION
  }

  /** Violation is a failed check; it ends the run. */
  static final class Violation extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final Inv inv;
    final long at;

    Violation(Inv inv, long at, String message) {
      super(inv + " at " + fmt(at) + ": " + message, null, false, false);
      this.inv = inv;
      this.at = at;
    }
  }

  /** Result of one run. */
  record Result(Scenario scenario, Violation violation, long steps, long events, Stats stats, List<String> trace) {
    boolean ok() {
      return violation == null;
    }
  }

  final Scenario sc;
  private final Engine engine;
  private final SimStore store;
  private final SimNetwork net;
  private final SimEtcd etcd;
  private final Checker checker;
  private final SimFaults faults;
  final Proc[] current;
  final boolean[] slotClosed;
  private final int[] incarnations;
  private long events;

  Simulation(Scenario sc, EnumSet<Inv> checked, int traceLines) {
    this.sc = sc;
    this.engine = new Engine(sc.runSeed(), checked, traceLines);
    this.net = new SimNetwork(engine, sc);
    this.store = new SimStore(net, 1 + engine.rnd.nextLong(1000), 0x7E57_0000_0000L + engine.rnd.nextLong(1L << 32));
    net.store = store;
    this.etcd = new SimEtcd(engine, store, sc.mutation);
    this.current = new Proc[sc.n];
    this.checker = new Checker(engine, sc, store, current);
    this.faults = new SimFaults(this, engine, net, store, checker);
    this.slotClosed = new boolean[sc.n];
    this.incarnations = new int[sc.n];
  }

  static String fmt(long t) {
    return String.format("%.6fs", t / 1e9);
  }

  Result run() {
    Violation v = null;
    SimLog.install(this::logged);
    try {
      setUp();
      EventQueue.Ev e;
      while ((e = engine.next()) != null) {
        if (e.time() > sc.endAt) {
          break;
        }
        engine.now = e.time();
        e.run();
        events++;
        engine.throwPending();
        checker.check();
        engine.throwPending();
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
      v = new Violation(Inv.NO_EXCEPTION, engine.now, b.toString());
    } finally {
      SimLog.install(null);
    }
    if (v != null) {
      engine.note("VIOLATION " + v.getMessage());
      engine.note("state: " + checker.snapshot());
    }
    Stats stats = engine.stats;
    stats.inc(Stat.SCHEDULES);
    stats.add(Stat.STEPS, engine.steps);
    stats.add(Stat.EVENTS, events);
    stats.add(Stat.VIRTUAL_MS, engine.now / MS);
    stats.add(Stat.FAULTS, sc.faults.size());
    return new Result(sc, v, engine.steps, events, stats, engine.traceLines());
  }

  /** logged hears the runtime's WARN and ERROR lines (see {@link SimLog}). */
  private void logged(Level level, String logger, String message, Throwable t) {
    if (level == Level.ERROR) {
      if (t != null) {
        checker.failed(Inv.NO_EXCEPTION, "the runtime logged: " + message, t);
      } else {
        checker.fail(Inv.NO_EXCEPTION, "the runtime logged: " + message);
      }
    } else if (message.contains("could not release lease")) {
      engine.stats.inc(Stat.RELEASES_GIVEN_UP);
    }
    engine.note(level + " " + message);
  }

  private void setUp() {
    for (int i = 0; i < sc.n; i++) {
      Proc p = spawn(i, sc.offsets[i], sc.rates[i]);
      engine.at(sc.startAt[i], p.elector::start);
    }
    scheduleSweep(sc.sweepPhase);
    if (sc.backgroundWritesPerSecond > 0) {
      scheduleUnrelatedWrite();
    }
    for (Fault f : sc.faults) {
      engine.at(f.at(), () -> faults.apply(f));
    }
    engine.at(sc.quietAt, this::beQuiet);
    engine.at(sc.closeAt, this::closeAll);
    double slow = 1 - sc.clockDrift;
    long rpc = sc.configs[0].rpcTimeout().toNanos();
    engine.at(sc.closeAt + 2 * (long) (rpc / slow) + 20 * MS, checker::checkKeyGoneAfterClose);
    engine.at(sc.closeAt + 3 * (long) (rpc / slow) + 50 * MS, checker::checkClosesDone);
    engine.at(sc.endAt, checker::checkNothingLeftBehind);
  }

  Proc spawn(int slot, long offset, double rate) {
    int inc = incarnations[slot]++;
    String name = "c" + slot + (inc == 0 ? "" : "#" + inc);
    Proc p = new Proc(slot, name, sc.configs[slot], sc.protocolConfigs[slot], engine.rnd.nextLong(),
        new SimClock(offset, rate), engine, net, etcd, checker, sc.mutation);
    current[slot] = p;
    engine.note("spawn " + p + " id=" + sc.ids[slot] + String.format(" rate=%.4f", rate));
    return p;
  }

  private void scheduleSweep(long t) {
    engine.at(t, () -> {
      store.sweep(engine.now);
      scheduleSweep(engine.now + Scenario.SWEEP);
    });
  }

  private void scheduleUnrelatedWrite() {
    long gap = (long) (-Math.log(1 - engine.rnd.nextDouble()) / sc.backgroundWritesPerSecond * S);
    engine.at(engine.now + Math.max(1, gap), () -> {
      store.unrelatedWrite();
      scheduleUnrelatedWrite();
    });
  }

  private void beQuiet() {
    engine.quiet = true;
    engine.note("QUIET: faults over");
    for (Proc p : current) {
      faults.resume(p);
    }
  }

  private void closeAll() {
    engine.note("CLOSE ALL");
    for (int i = 0; i < sc.n; i++) {
      Proc p = current[i];
      if (!p.crashed && !slotClosed[i]) {
        slotClosed[i] = true;
        p.closeAsync(engine);
      }
    }
  }

  static EnumSet<Inv> all() {
    return EnumSet.allOf(Inv.class);
  }
}
