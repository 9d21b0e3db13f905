package dev.leasehold.spec.sim;

import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.runtime.Input;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * SimNetwork carries candidates' requests to the simulated etcd and its replies and watch
 * events (of K and of the participant keys under it) back: delays, loss, reordering,
 * per-candidate partitions, slow periods and client-library retries (a duplicated request),
 * plus the routing to an isolated old leader.
 * It knows nothing of timeouts: a lost message is simply never delivered, and the runtime's
 * own RPC timeout decides what the candidate sees.
 *
 * <p>Not thread-safe: one simulation owns it.
 */
final class SimNetwork implements SimStore.Listener {
  /** Member is which side of etcd a request reaches. */
  enum Member { MAJORITY, OLD_LEADER }

  private final Engine engine;
  private final Scenario sc;
  SimStore store;
  private final List<Watcher> watchers = new ArrayList<>();
  // Faults, set by Simulation.
  final long[] partitionedUntil;
  final long[] slowUntil;
  final long[] slowMax;
  final long[] watchDelayUntil;
  final long[] watchDelayMax;
  final long[] watchSilentUntil;
  final double[] routeOld;
  long allSlowUntil;
  long allSlowMax;
  long lossyUntil;
  double lossyP;

  SimNetwork(Engine engine, Scenario sc) {
    this.engine = engine;
    this.sc = sc;
    int n = sc.n;
    partitionedUntil = new long[n];
    slowUntil = new long[n];
    slowMax = new long[n];
    watchDelayUntil = new long[n];
    watchDelayMax = new long[n];
    watchSilentUntil = new long[n];
    routeOld = new double[n];
  }

  /**
   * rpc sends a request from {@code slot}: it may be lost or delayed; the server applies it on
   * arrival ({@code serve} returns the reply, or null for none); the reply may be lost or
   * delayed. A client-library retry may apply a second copy, whose reply may arrive too.
   */
  void rpc(int slot, long rpcTimeout, Function<Member, Object> serve, Consumer<Object> reply) {
    engine.stats.inc(Stat.REQUESTS);
    if (lost(slot)) {
      return;
    }
    engine.at(engine.now + delay(slot), () -> answer(slot, serve, reply));
    if (!engine.quiet && sc.duplicateP > 0 && engine.rnd.nextDouble() < sc.duplicateP) {
      engine.stats.inc(Stat.DUPLICATED_REQUESTS);
      long arrive2 = engine.now + delay(slot) + engine.rnd.nextLong(rpcTimeout);
      engine.at(arrive2, () -> answer(slot, serve, reply));
    }
  }

  private void answer(int slot, Function<Member, Object> serve, Consumer<Object> reply) {
    Object r = serve.apply(route(slot));
    if (r == null || lost(slot)) {
      return;
    }
    engine.at(engine.now + delay(slot), () -> reply.accept(r));
  }

  boolean lost(int slot) {
    if (engine.now < partitionedUntil[slot]) {
      return true;
    }
    return !engine.quiet && engine.now < lossyUntil && engine.rnd.nextDouble() < lossyP;
  }

  long delay(int slot) {
    long d = 50_000 + engine.rnd.nextLong(Scenario.BASE_DELAY_MAX);
    if (engine.quiet) {
      return d;
    }
    long now = engine.now;
    if (now < slowUntil[slot]) {
      return d + engine.rnd.nextLong(slowMax[slot]);
    }
    if (now < allSlowUntil) {
      return d + engine.rnd.nextLong(allSlowMax);
    }
    if (sc.spikeP > 0 && engine.rnd.nextDouble() < sc.spikeP) {
      return d + engine.rnd.nextLong(sc.spikeMax);
    }
    return d;
  }

  Member route(int slot) {
    if (store.isolated && routeOld[slot] > 0 && engine.rnd.nextDouble() < routeOld[slot]) {
      return Member.OLD_LEADER;
    }
    return Member.MAJORITY;
  }

  // ---- watches ----

  /** Watcher is one watch stream; its events reach {@code inbox} in order. */
  final class Watcher {
    final int slot;
    final long id;
    final long from;
    final Consumer<Input> inbox;
    Member member = Member.MAJORITY;
    boolean closed;
    boolean failed;
    long lastDeliver;

    final boolean queue;

    Watcher(int slot, long id, long from, boolean queue, Consumer<Input> inbox) {
      this.slot = slot;
      this.id = id;
      this.from = from;
      this.queue = queue;
      this.inbox = inbox;
    }
  }

  /** watch opens a stream from {@code from}; it registers after a delay, or never comes up. */
  Watcher watch(int slot, long rpcTimeout, long id, long from, boolean queue, Consumer<Input> inbox) {
    Watcher x = new Watcher(slot, id, from, queue, inbox);
    if (lost(slot)) {
      // The stream never comes up: it errors after a while, or stays silent.
      if (engine.rnd.nextBoolean()) {
        long after = engine.rnd.nextLong(rpcTimeout);
        engine.at(engine.now + after, () -> failWatch(x, false, "stream error"));
      }
      return x;
    }
    engine.at(engine.now + delay(slot), () -> registerWatch(x));
    return x;
  }

  private void registerWatch(Watcher x) {
    if (x.closed || x.failed) {
      return;
    }
    x.member = route(x.slot);
    if (x.member == Member.MAJORITY && !store.hasLeader) {
      failWatch(x, false, "etcdserver: no leader");
      return;
    }
    if (x.from <= store.compactRevision) {
      failWatch(x, true, "required revision has been compacted");
      return;
    }
    watchers.add(x);
    long upTo = x.member == Member.OLD_LEADER ? store.isoRevision : Long.MAX_VALUE;
    for (SimStore.KeyEvent e : store.history) {
      if (e.revision() >= x.from && e.revision() <= upTo) {
        send(x, e);
      }
    }
  }

  private void send(Watcher x, SimStore.KeyEvent e) {
    int slot = x.slot;
    long now = engine.now;
    if (e.ofParticipant() && !x.queue) {
      return;
    }
    if (x.failed || x.closed || now < partitionedUntil[slot] || (!engine.quiet && now < watchSilentUntil[slot])) {
      return;
    }
    long d = delay(slot);
    if (!engine.quiet && now < watchDelayUntil[slot]) {
      d += engine.rnd.nextLong(watchDelayMax[slot]);
    }
    long when = Math.max(x.lastDeliver, now + d);
    x.lastDeliver = when;
    engine.at(when, () -> deliver(x, event(x.id, e)));
  }

  /** event is what the watch stream {@code id} (of K and its participant keys) reports of {@code e}. */
  private static Input event(long id, SimStore.KeyEvent e) {
    if (e.ofParticipant()) {
      return e.put() ? new EtcdInput.WatchEnlisted(id, e.participant(), e.revision())
          : new EtcdInput.WatchWithdrawn(id, e.lease(), e.revision());
    }
    return e.put() ? new EtcdInput.WatchPut(id, e.record(), e.revision()) : new EtcdInput.WatchDelete(id, e.revision());
  }

  private void deliver(Watcher x, Input in) {
    if (!x.closed) {
      x.inbox.accept(in);
    }
  }

  void failWatch(Watcher x, boolean compacted, String reason) {
    if (x.failed || x.closed) {
      return;
    }
    x.failed = true;
    watchers.remove(x);
    engine.stats.inc(compacted ? Stat.WATCH_COMPACTED : Stat.WATCH_FAILURES);
    long when = Math.max(x.lastDeliver, engine.now + delay(x.slot));
    Input in = new EtcdInput.WatchFailed(x.id, compacted, reason);
    engine.at(when, () -> deliver(x, in));
  }

  void closeWatcher(Watcher x) {
    x.closed = true;
    watchers.remove(x);
  }

  /** liveWatchers is a copy of the registered streams, in registration order. */
  List<Watcher> liveWatchers() {
    return new ArrayList<>(watchers);
  }

  @Override
  public void keyChanged(SimStore.KeyEvent e) {
    if (e.ofParticipant()) {
      if (!e.put()) {
        engine.stats.inc(Stat.PARTICIPANTS_WITHDRAWN);
      }
      engine.note("store: " + (e.put() ? "PUT P " + e.participant() : "DELETE P(" + Long.toHexString(e.lease()) + ")")
          + " rev=" + e.revision());
    } else {
      engine.note("store: " + (e.put() ? "PUT K " + e.record() : "DELETE K") + " rev=" + e.revision());
    }
    for (Watcher x : liveWatchers()) {
      if (x.member == Member.MAJORITY) {
        send(x, e);
      }
    }
  }

  @Override
  public void leaseRemoved(SimStore.Lease l, String why) {
    if (why.equals("expired")) {
      engine.stats.inc(Stat.LEASES_EXPIRED_BY_SWEEP);
    }
    engine.note("store: lease " + Long.toHexString(l.id) + " of " + l.owner + " removed (" + why + ")");
  }
}
