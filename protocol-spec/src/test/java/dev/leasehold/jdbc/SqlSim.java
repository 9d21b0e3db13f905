package dev.leasehold.jdbc;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.test.engine.EventQueue;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.spec.sim.SimLog;
import dev.leasehold.test.engine.SimScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.event.Level;

/**
 * SqlSim is one deterministic schedule of the SQL backend: up to three candidates, each core's
 * real {@link ElectorRuntime} over the real {@link SqlMachine}, on the etcd simulation's {@link SimScheduler}
 * and a {@link SqlSimPort} onto one {@link SqlSimServer}. A fault phase (pauses, crashes and
 * restarts, close, resign, partitions, lost and late requests and replies, session KILL,
 * server restart, server clock steps forward) is followed by a quiet phase in which a leader
 * must appear. Invariants: NO_OVERLAP, FENCING_MONOTONIC, EVENT_PAIRING, LIVENESS,
 * NO_EXCEPTION (see {@link Inv}). Not thread-safe: one thread runs one schedule.
 */
final class SqlSim extends EventQueue {

  /** Inv names the invariants checked. */
  enum Inv { NO_OVERLAP, FENCING_MONOTONIC, EVENT_PAIRING, LIVENESS, NO_EXCEPTION }

  /** Violation is the first invariant broken, with the seed and the trace's tail. */
  static final class Violation extends RuntimeException {
    final Inv inv;

    Violation(Inv inv, String message) {
      super(inv + ": " + message, null, false, false);
      this.inv = inv;
    }
  }

  /** Proc is one incarnation of a candidate; a restart after a crash or close is a new Proc. */
  final class Proc {
    final String id;
    final SimScheduler sched;
    final SqlSimPort port;
    final ElectorRuntime elector;
    final long ttlMicros;
    final List<Leadership> handles = new ArrayList<>();
    boolean crashed;
    boolean closed;
    boolean partitioned;
    private LeadershipEvent last;
    private boolean unavailable;
    private long lastToken;

    Proc(String id) {
      this.id = id;
      double rate = 1 + (rnd.nextDouble() * 2 - 1) * 0.009; // within ρ = 0.01
      this.sched = new SimScheduler(SqlSim.this, new SimClock(rnd.nextLong(1L << 40), rate));
      this.port = new SqlSimPort(SqlSim.this, this, config.rpcTimeout().toNanos());
      this.ttlMicros = config.leaseTtl().toNanos() / 1_000;
      ElectorConfig ec = ElectorConfig.builder().config(config).candidateId(id).build();
      SqlMachine m = new SqlMachine(SqlConfig.from(ec, "leasehold_leases"), new SplittableRandom(rnd.nextLong()));
      this.elector = new ElectorRuntime(ec, m, port, sched, id);
      elector.onLeadershipChanged(this::event);
      elector.start();
    }

    /** event checks EVENT_PAIRING and FENCING_MONOTONIC on what a listener sees. */
    private void event(LeadershipEvent e) {
      note(id + " " + e.from() + "->" + e.to() + " " + e.cause()
          + e.leadership().map(l -> " token " + l.fencingToken()).orElse(""));
      if (last == null) {
        check(e.cause() == Cause.SUBSCRIBED, Inv.EVENT_PAIRING, id + ": first event " + e.cause());
      } else {
        check(e.cause() != Cause.SUBSCRIBED && last.to() != ElectorState.STOPPED, Inv.EVENT_PAIRING,
            id + ": " + e.cause() + " after " + last.cause());
        check(view(e.from()) == view(last.to()), Inv.EVENT_PAIRING, id + ": " + e + " does not follow " + last);
        check((e.to() == ElectorState.MASTER && e.from() != ElectorState.MASTER) == (e.cause() == Cause.ELECTED),
            Inv.EVENT_PAIRING, id + ": " + e.cause() + " " + e.from() + "->" + e.to());
        if (e.cause() == Cause.STORE_UNAVAILABLE || e.cause() == Cause.STORE_RECOVERED) {
          boolean down = e.cause() == Cause.STORE_UNAVAILABLE;
          check(down != unavailable, Inv.EVENT_PAIRING, id + ": " + e.cause() + " twice");
          unavailable = down;
        }
        if (e.from() == ElectorState.MASTER && e.to() != ElectorState.MASTER) {
          unavailable = e.cause() == Cause.STORE_UNAVAILABLE;
          for (Leadership l : handles) {
            check(!l.isValid(), Inv.EVENT_PAIRING, id + ": term " + l.fencingToken() + " valid at its loss " + e.cause());
          }
        }
      }
      if (e.cause() == Cause.ELECTED) {
        check(e.leadership().isPresent(), Inv.EVENT_PAIRING, id + ": ELECTED without a Leadership");
        long token = e.leadership().get().fencingToken();
        check(token > lastToken && token > maxElected, Inv.FENCING_MONOTONIC,
            id + ": ELECTED token " + token + " after " + Math.max(lastToken, maxElected));
        check(token == takenBy(this), Inv.FENCING_MONOTONIC, id + ": ELECTED token " + token
            + " is not the epoch it took (" + takenBy(this) + ")");
        lastToken = token;
        elected++;
        maxElected = Math.max(maxElected, token);
        handles.add(e.leadership().get());
      }
      last = e;
    }

    // FOLLOWER <-> CANDIDATE moves are not published: the two are one view.
    private ElectorState view(ElectorState s) {
      return s == ElectorState.CANDIDATE ? ElectorState.FOLLOWER : s;
    }

    /** believes is what an application may act on now: isLeader() or a handle still valid. */
    boolean believes() {
      if (crashed || sched.isPaused()) {
        return false; // a paused or dead process cannot act (pauses are excused)
      }
      handles.removeIf(l -> !l.isValid());
      return elector.isLeader() || !handles.isEmpty();
    }
  }

  final SqlSimServer server = new SqlSimServer(this);
  final ElectorConfig config;
  final List<Proc> procs = new ArrayList<>();
  private final String[] trace = new String[80];
  private final java.util.Map<Proc, Long> taken = new java.util.HashMap<>();
  private long traced;
  private long maxElected;
  private Violation pending;
  private final double lossRate;
  private final long slow;
  long events;
  long elected;

  /** NEVER_FREED names the lock a pooled follower's wait stands on: held by a session that never ends. */
  static final String NEVER_FREED = "pooled/never-freed";

  /**
   * pooled runs the PostgreSQL dialect behind a transaction pooler: no session lock, so a
   * CANDIDATE's lock always succeeds, a FOLLOWER's wait always runs out (the poll is the only
   * wake-up) and an unlock does nothing. Otherwise the wake-up is a session lock, which is what
   * both GET_LOCK and PostgreSQL's advisory lock are (recursive, freed with their session).
   */
  final boolean pooled;

  SqlSim(long seed) {
    this(seed, false);
  }

  SqlSim(long seed, boolean pooled) {
    super(seed);
    this.pooled = pooled;
    if (pooled) {
      server.holdForever(NEVER_FREED);
    }
    config = ElectorConfig.builder().electionKey("sim").candidateId("c")
        .leaseTtl(Duration.ofMillis(1_000)).pollInterval(Duration.ofMillis(100 + rnd.nextInt(400)))
        .rpcTimeout(Duration.ofMillis(250)).retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .safetyMargin(Duration.ofMillis(rnd.nextBoolean() ? 100 : 10 + rnd.nextInt(40)))
        .resignHoldoff(Duration.ofMillis(300)).build();
    lossRate = new double[] {0, 0.01, 0.05, 0.15}[rnd.nextInt(4)];
    slow = rnd.nextInt(3) == 0 ? 240 * MS : 5 * MS;
  }

  /** delay is one network crossing: 0.1–1 ms, while faults last sometimes up to {@code slow}. */
  long delay() {
    long d = 100_000 + rnd.nextLong(900_000);
    return !quiet && rnd.nextInt(20) == 0 ? d + rnd.nextLong(slow) : d;
  }

  boolean lost(Proc p) {
    return !quiet && (p.partitioned || rnd.nextDouble() < lossRate);
  }

  void taken(Proc p, long epoch) {
    note(p.id + " took the row, epoch " + epoch);
    taken.put(p, epoch);
  }

  private long takenBy(Proc p) {
    return taken.getOrDefault(p, -1L);
  }

  void note(String s) {
    trace[(int) (traced++ % trace.length)] = String.format("%9.3f ms  %s", now / 1e6, s);
  }

  private void check(boolean ok, Inv inv, String message) {
    if (!ok && pending == null) {
      pending = new Violation(inv, message);
    }
  }

  String traceTail() {
    StringBuilder b = new StringBuilder();
    for (long i = Math.max(0, traced - trace.length); i < traced; i++) {
      b.append("\n  ").append(trace[(int) (i % trace.length)]);
    }
    return b.toString();
  }

  /** liveness is the bound on a leader's appearance once faults stop (see PROTOCOL.md/VERIFICATION.md). */
  long livenessBound() {
    long ttl = config.leaseTtl().toNanos();
    long poll = config.pollInterval().toNanos();
    long rpc = config.rpcTimeout().toNanos();
    double rho = config.maxDriftRate();
    return (long) (ttl * (1 + rho) / (1 - rho)) + 2 * poll + 6 * rpc
        + config.retryBackoffMax().toNanos() + config.resignHoldoff().toNanos() + 50 * MS;
  }

  /** run runs the schedule; throws the first Violation. */
  void run() {
    SimLog.install((level, logger, message, t) -> {
      if (level == Level.ERROR) {
        check(false, Inv.NO_EXCEPTION, logger + ": " + message + (t == null ? "" : " " + t));
      }
    });
    try {
      int n = 2 + rnd.nextInt(2);
      for (int i = 0; i < n; i++) {
        procs.add(new Proc("c" + i));
      }
      long faultsEnd = (3_000 + rnd.nextInt(5_000)) * MS;
      for (long t = rnd.nextLong(300 * MS); t < faultsEnd; t += rnd.nextLong(600 * MS)) {
        at(t, this::fault);
      }
      long bound = livenessBound();
      at(faultsEnd, this::quiet);
      at(faultsEnd + bound, () -> {
        boolean some = false;
        for (Proc p : procs) {
          some |= !p.crashed && !p.closed && p.elector.isLeader();
        }
        check(some, Inv.LIVENESS, "no leader " + bound / MS + " ms after faults stopped");
      });
      long end = faultsEnd + bound;
      Ev e;
      while ((e = next()) != null && e.time() <= end) {
        now = e.time();
        events++;
        e.run();
        int leaders = 0;
        for (Proc p : procs) {
          leaders += p.believes() ? 1 : 0;
        }
        check(leaders <= 1, Inv.NO_OVERLAP, leaders + " candidates act as leader: " + describe());
        if (pending != null) {
          throw pending;
        }
      }
    } finally {
      SimLog.install(null);
    }
  }

  private String describe() {
    StringBuilder b = new StringBuilder();
    for (Proc p : procs) {
      if (p.believes()) {
        b.append(p.id).append(" (isLeader ").append(p.elector.isLeader()).append(", tokens ")
            .append(p.handles.stream().map(Leadership::fencingToken).toList()).append(") ");
      }
    }
    return b.toString();
  }

  private List<Proc> live() {
    return procs.stream().filter(p -> !p.crashed && !p.closed).toList();
  }

  private void fault() {
    List<Proc> live = live();
    int kind = rnd.nextInt(10);
    if (live.isEmpty() || kind == 0 && live.size() < 3) {
      Proc p = new Proc("c" + procs.size());
      procs.add(p);
      note(p.id + " started");
      return;
    }
    Proc p = live.get(rnd.nextInt(live.size()));
    long ttl = config.leaseTtl().toNanos();
    switch (kind) {
      case 1 -> {
        long d = rnd.nextLong(2 * ttl);
        note(p.id + " paused for " + d / MS + " ms");
        p.sched.pause();
        at(now + d, () -> p.sched.resume());
      }
      case 2 -> {
        note(p.id + " crashed");
        p.crashed = true;
        p.sched.abandon();
        p.port.abandon();
      }
      case 3 -> {
        note(p.id + " closing");
        p.closed = true;
        p.elector.closeAsync();
      }
      case 4 -> {
        note(p.id + " resigns");
        p.elector.resign();
      }
      case 5 -> {
        long d = rnd.nextLong(2 * ttl);
        note(p.id + " partitioned for " + d / MS + " ms");
        p.partitioned = true;
        at(now + d, () -> p.partitioned = false);
      }
      case 6 -> {
        if (!server.sessions.isEmpty()) {
          note("KILL a session");
          server.end(server.sessions.get(rnd.nextInt(server.sessions.size())));
        }
      }
      case 7 -> {
        note("server restart");
        server.restart();
      }
      case 8 -> {
        long d = rnd.nextLong(ttl);
        note("server clock steps " + d / MS + " ms forward");
        server.stepClock(d);
      }
      default -> { }
    }
  }

  private void quiet() {
    quiet = true;
    note("faults stop");
    for (Proc p : procs) {
      p.partitioned = false;
      if (p.sched.isPaused()) {
        p.sched.resume();
      }
    }
    if (live().isEmpty()) {
      procs.add(new Proc("c" + procs.size()));
    }
  }

  /** firstViolation searches seeds [first, first + count) for a violation: {seed, inv, message} or null. */
  public static String[] firstViolation(long first, long count) {
    for (long s = first; s < first + count; s++) {
      try {
        new SqlSim(s).run();
      } catch (Violation v) {
        return new String[] {Long.toString(s), v.inv.name(), v.getMessage()};
      }
    }
    return null;
  }
}
