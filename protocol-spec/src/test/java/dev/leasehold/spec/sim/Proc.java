package dev.leasehold.spec.sim;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Proc is one incarnation of a candidate process: core's real {@link ElectorRuntime} running
 * core's real {@link ElectionMachine}, on a {@link SimScheduler} (its threads and clock) and a
 * {@link SimPort} (its etcd client), with one listener subscribed ({@link Pairing}). A restart
 * after a crash is a new Proc.
 *
 * <p>Not thread-safe: the simulation's one thread uses it.
 */
final class Proc {
  final int slot;
  final String name;
  final ElectorConfig ec;
  final SimClock clock;
  final long rpcTimeout;
  final Mutation mutation;
  final ElectionMachine m;
  final SimScheduler scheduler;
  final SimPort port;
  final ElectorRuntime elector;
  final Pairing events;
  final Checker.Published published = new Checker.Published();
  boolean crashed;
  boolean paused;
  /** sick: this candidate's health check answers unhealthy (schedules with health checks). */
  volatile boolean sick;
  /** closeRequested: closeAsync() was called; closedAt: when its stage completed (-1: not yet). */
  boolean closeRequested;
  long closeRequestedAt = -1;
  long closedAt = -1;
  // For the mutations and the counters.
  long lastAckTerm;
  final Set<Long> appliedCampaigns = new HashSet<>();
  final Set<Long> appliedHandovers = new HashSet<>();

  Proc(int slot, String name, ElectorConfig ec, ProtocolConfig pc, long seed, SimClock clock,
      Engine engine, SimNetwork net, SimEtcd etcd, Checker checker, Mutation mutation) {
    this.slot = slot;
    this.name = name;
    this.ec = ec.healthCheck().isPresent() ? ElectorConfig.builder().config(ec).healthCheck(() -> !sick).build() : ec;
    this.clock = clock;
    this.rpcTimeout = this.ec.rpcTimeout().toNanos();
    this.mutation = mutation;
    this.m = new ElectionMachine(pc, new SplittableRandom(seed));
    this.scheduler = new SimScheduler(engine, clock);
    this.port = new SimPort(this, net, etcd, checker);
    this.elector = new ElectorRuntime(this.ec, new ObservedMachine(this, engine, checker, m), port, scheduler, name);
    this.events = new Pairing(this, engine, checker);
    elector.onLeadershipChanged(events);
  }

  /**
   * termToken is the token of the machine's current term, 0 when it has none: while MASTER, the
   * machine's leader is itself with that token, which is how the runtime tells a term is current.
   */
  long termToken() {
    return m.role() == ElectorState.MASTER ? m.leader().fencingToken() : 0;
  }

  /** closeAsync closes the elector as a user would, and notes when the close completes. */
  void closeAsync(Engine engine) {
    closeRequested = true;
    closeRequestedAt = engine.now;
    elector.closeAsync().whenComplete((v, e) -> {
      closedAt = engine.now;
      engine.note(name + " closed");
    });
  }

  /** crash abandons the runtime: its threads and its client stop dead. */
  void crash() {
    crashed = true;
    scheduler.abandon();
    port.abandon();
  }

  void pause() {
    paused = true;
    scheduler.pause();
  }

  void resume() {
    paused = false;
    scheduler.resume();
  }

  long local(long now) {
    return clock.local(now);
  }

  @Override
  public String toString() {
    return name;
  }
}
