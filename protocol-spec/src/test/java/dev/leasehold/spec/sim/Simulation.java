package dev.leasehold.spec.sim;

import dev.leasehold.ElectorState;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.spec.sim.Scenario.Fault;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
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
    /** A leader (as for NO_OVERLAP) has K bound to its lease, with its token as create revision. */
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
    /** From quietAt, no stretch without a leader lasts longer than the scenario's liveness bound. */
    LIVENESS,
    /**
     * A MASTER elected once faults have stopped and every call sent before that has resolved
     * (quietAt + rpcTimeout) keeps leading until close.
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
    /** Within TTL after close (plus sweep and an in-flight grant), no lease and no key remain. */
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
  private final Proc[] current;
  private final boolean[] slotClosed;
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
      Engine.Ev e;
      while ((e = engine.next()) != null) {
        if (e.t > sc.endAt) {
          break;
        }
        engine.now = e.t;
        e.r.run();
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
      engine.at(f.at(), () -> apply(f));
    }
    engine.at(sc.quietAt, this::beQuiet);
    engine.at(sc.closeAt, this::closeAll);
    double slow = 1 - sc.clockDrift;
    long rpc = sc.configs[0].rpcTimeout().toNanos();
    engine.at(sc.closeAt + 2 * (long) (rpc / slow) + 20 * MS, checker::checkKeyGoneAfterClose);
    engine.at(sc.closeAt + 3 * (long) (rpc / slow) + 50 * MS, checker::checkClosesDone);
    engine.at(sc.endAt, checker::checkNothingLeftBehind);
  }

  private Proc spawn(int slot, long offset, double rate) {
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

  // ---- faults ----

  private void apply(Fault f) {
    engine.note("FAULT " + f);
    long now = engine.now;
    SplittableRandom rnd = engine.rnd;
    Proc p = f.slot() >= 0 ? current[f.slot()] : null;
    switch (f.kind()) {
      case PARTITION -> {
        engine.stats.inc(Stat.PARTITIONS);
        net.partitionedUntil[f.slot()] = Math.max(net.partitionedUntil[f.slot()], now + f.duration());
        SimNetwork.Watcher x = p.port.watcher();
        if (x != null && rnd.nextInt(10) < 7) {
          long after = rnd.nextLong(Math.max(1, Math.min(f.duration(), 2 * S)));
          engine.at(now + after, () -> net.failWatch(x, false, "connection lost"));
        }
      }
      case LOSSY -> {
        net.lossyUntil = now + f.duration();
        net.lossyP = f.x();
      }
      case SLOW -> {
        if (f.slot() < 0) {
          net.allSlowUntil = now + f.duration();
          net.allSlowMax = f.duration2();
        } else {
          net.slowUntil[f.slot()] = now + f.duration();
          net.slowMax[f.slot()] = f.duration2();
        }
      }
      case LEADER_CHANGE -> leaderChange(f);
      case ISOLATE_LEADER -> isolateLeader(f);
      case WATCH_DELAY -> {
        net.watchDelayUntil[f.slot()] = now + f.duration();
        net.watchDelayMax[f.slot()] = f.duration2();
      }
      case WATCH_DROP -> {
        if (p.port.watcher() != null) {
          net.failWatch(p.port.watcher(), f.x() < 0.3, f.x() < 0.3 ? "compacted" : "watch dropped");
        }
      }
      case WATCH_SILENT -> net.watchSilentUntil[f.slot()] = now + f.duration();
      case COMPACT -> {
        engine.stats.inc(Stat.COMPACTIONS);
        store.compact();
        SplittableRandom r = new SplittableRandom(f.sub());
        for (SimNetwork.Watcher x : net.liveWatchers()) {
          if (r.nextDouble() < f.x()) {
            net.failWatch(x, true, "compacted");
          }
        }
      }
      case CRASH -> crash(f, p);
      case PAUSE -> {
        if (p.crashed || p.paused || p.closedAt >= 0) {
          return;
        }
        engine.stats.inc(Stat.PAUSES);
        if (p.m.role() == ElectorState.MASTER) {
          engine.stats.inc(Stat.PAUSED_MASTERS);
        }
        p.pause();
        engine.at(now + f.duration(), () -> resume(p));
      }
      case RESIGN -> {
        if (!p.crashed) {
          engine.stats.inc(Stat.RESIGNS);
          p.elector.resign();
        }
      }
      case DRIFT -> {
        engine.stats.inc(Stat.DRIFT_CHANGES);
        p.clock.setRate(now, f.x());
        p.scheduler.clockChanged();
      }
      case ADMIN_DELETE -> {
        KeyRecord k = store.key;
        if (k != null) {
          engine.stats.inc(Stat.ADMIN_ACTIONS);
          checker.deletedByOperator.add(new Checker.Term(k.leaseId(), k.createRevision()));
          store.adminDelete();
        }
      }
      case ADMIN_REVOKE -> {
        KeyRecord k = store.key;
        if (k != null) {
          engine.stats.inc(Stat.ADMIN_ACTIONS);
          checker.revokedByOperator.add(k.leaseId());
          store.revoke(k.leaseId(), "revoked by an operator");
        }
      }
      case CLOSE -> {
        if (slotClosed[f.slot()] || p.crashed) {
          return;
        }
        engine.stats.inc(Stat.EARLY_CLOSES);
        slotClosed[f.slot()] = true;
        p.closeAsync(engine);
      }
      default -> throw new IllegalStateException(f.kind().toString());
    }
  }

  private void leaderChange(Fault f) {
    engine.stats.inc(Stat.LEADER_CHANGES);
    store.hasLeader = false;
    for (SimNetwork.Watcher x : net.liveWatchers()) {
      if (engine.rnd.nextInt(10) < 3) {
        net.failWatch(x, false, "leader changed");
      }
    }
    engine.at(engine.now + f.duration(), () -> {
      store.term++;
      store.hasLeader = true;
      store.promote(engine.now);
      engine.note("store: new leader, term " + store.term + "; leases promoted");
    });
  }

  private void isolateLeader(Fault f) {
    engine.stats.inc(Stat.ISOLATIONS);
    store.isolate();
    SplittableRandom r = new SplittableRandom(f.sub());
    for (int i = 0; i < sc.n; i++) {
      int k = r.nextInt(3);
      net.routeOld[i] = k == 0 ? 0 : k == 1 ? 0.5 : 1.0;
    }
    for (SimNetwork.Watcher x : net.liveWatchers()) {
      if (engine.rnd.nextDouble() < net.routeOld[x.slot]) {
        x.member = SimNetwork.Member.OLD_LEADER;
      }
    }
    engine.note("store: leader of term " + store.isoTerm + " isolated; routes to it " + Arrays.toString(net.routeOld));
    engine.at(engine.now + f.duration2(), () -> {
      store.term += 1 + engine.rnd.nextInt(2);
      store.hasLeader = true;
      store.promote(engine.now);
      engine.note("store: majority elected a leader, term " + store.term + "; leases promoted");
    });
    engine.at(engine.now + f.duration(), () -> {
      store.isolated = false;
      for (SimNetwork.Watcher x : net.liveWatchers()) {
        if (x.member == SimNetwork.Member.OLD_LEADER) {
          net.failWatch(x, false, "etcdserver: no leader");
        }
      }
      engine.note("store: isolation of the term-" + store.isoTerm + " leader ends");
    });
  }

  private void crash(Fault f, Proc p) {
    int slot = f.slot();
    if (p.crashed || slotClosed[slot]) {
      return;
    }
    engine.stats.inc(Stat.CRASHES);
    p.crash();
    engine.note(p + " crashes");
    if (f.duration() >= 0) {
      engine.at(engine.now + f.duration(), () -> {
        if (slotClosed[slot]) {
          return;
        }
        engine.stats.inc(Stat.RESTARTS);
        Proc q = spawn(slot, engine.rnd.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L), sc.rates[slot]);
        q.elector.start();
      });
    }
  }

  private void resume(Proc p) {
    if (!p.paused) {
      return;
    }
    if (!p.crashed && p.m.role() == ElectorState.MASTER && p.local(engine.now) >= p.m.deadline()) {
      engine.stats.inc(Stat.MASTERS_RESUMED_PAST_DEADLINE);
    }
    engine.note(p + " resumes");
    p.resume();
  }

  private void beQuiet() {
    engine.quiet = true;
    engine.note("QUIET: faults over");
    for (Proc p : current) {
      resume(p);
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
