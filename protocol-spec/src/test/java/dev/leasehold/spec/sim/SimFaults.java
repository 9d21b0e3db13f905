package dev.leasehold.spec.sim;

import dev.leasehold.ElectorState;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.spec.sim.Scenario.Fault;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * SimFaults applies a {@link Scenario}'s faults when they come due: to the network
 * ({@link SimNetwork}), to the store ({@link SimStore}: leader changes, isolation,
 * compaction, operator actions: deleting K or, once there is a queue, sometimes a participant
 * key instead; revoking K's lease), and to the candidate processes (crash and restart, pause,
 * clock drift, resign, an early close). What a process does about a fault is the real
 * runtime's business.
 *
 * <p>Not thread-safe: one simulation owns it.
 */
final class SimFaults {
  private final Simulation sim;
  private final Engine engine;
  private final SimNetwork net;
  private final SimStore store;
  private final Checker checker;

  SimFaults(Simulation sim, Engine engine, SimNetwork net, SimStore store, Checker checker) {
    this.sim = sim;
    this.engine = engine;
    this.net = net;
    this.store = store;
    this.checker = checker;
  }

  void apply(Fault f) {
    engine.note("FAULT " + f);
    long now = engine.now;
    SplittableRandom rnd = engine.rnd;
    Proc p = f.slot() >= 0 ? sim.current[f.slot()] : null;
    switch (f.kind()) {
      case PARTITION -> {
        engine.stats.inc(Stat.PARTITIONS);
        net.partitionedUntil[f.slot()] = Math.max(net.partitionedUntil[f.slot()], now + f.duration());
        SimNetwork.Watcher x = p.port.watcher();
        if (x != null && rnd.nextInt(10) < 7) {
          long after = rnd.nextLong(Math.max(1, Math.min(f.duration(), 2 * Scenario.S)));
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
      case SICK -> {
        engine.stats.inc(Stat.SICK_SPELLS);
        p.sick = true;
        engine.at(now + f.duration(), () -> p.sick = false);
      }
      case TRANSFER -> {
        if (!p.crashed && p.closedAt < 0) {
          engine.stats.inc(Stat.TRANSFERS);
          p.elector.transferTo(sim.sc.targetId(f)).whenComplete((leader, refused) ->
              engine.stats.inc(refused == null ? Stat.TRANSFERS_COMMITTED : Stat.TRANSFERS_REFUSED));
        }
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
        if (!store.queue.isEmpty() && rnd.nextInt(3) == 0) {
          // etcdctl del K/candidates/<lease>: the queue is a hint, no property may rest on it.
          List<Long> queued = new ArrayList<>(store.queue.keySet());
          engine.stats.inc(Stat.ADMIN_ACTIONS);
          store.adminDeleteParticipant(queued.get(rnd.nextInt(queued.size())));
          return;
        }
        KeyRecord k = store.key;
        if (k != null) {
          engine.stats.inc(Stat.ADMIN_ACTIONS);
          checker.deletedByOperator.add(new Checker.Term(k.leaseId(), k.token()));
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
        if (sim.slotClosed[f.slot()] || p.crashed) {
          return;
        }
        engine.stats.inc(Stat.EARLY_CLOSES);
        sim.slotClosed[f.slot()] = true;
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
    for (int i = 0; i < sim.sc.n; i++) {
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
    if (p.crashed || sim.slotClosed[slot]) {
      return;
    }
    engine.stats.inc(Stat.CRASHES);
    p.crash();
    engine.note(p + " crashes");
    if (f.duration() >= 0) {
      engine.at(engine.now + f.duration(), () -> {
        if (sim.slotClosed[slot]) {
          return;
        }
        engine.stats.inc(Stat.RESTARTS);
        Proc q = sim.spawn(slot, engine.rnd.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L), sim.sc.rates[slot]);
        q.elector.start();
      });
    }
  }

  void resume(Proc p) {
    if (!p.paused) {
      return;
    }
    if (!p.crashed && p.m.role() == ElectorState.MASTER && p.local(engine.now) >= p.m.deadline()) {
      engine.stats.inc(Stat.MASTERS_RESUMED_PAST_DEADLINE);
    }
    engine.note(p + " resumes");
    p.resume();
  }
}
