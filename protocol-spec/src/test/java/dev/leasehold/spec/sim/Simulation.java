package dev.leasehold.spec.sim;

import dev.leasehold.LeaderElector;
import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.protocol.EtcdCommand;
import dev.leasehold.runtime.Command;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.EtcdInput;
import dev.leasehold.runtime.Input;
import dev.leasehold.protocol.KeyRecord;
import dev.leasehold.protocol.ProtocolConfig;
import dev.leasehold.protocol.TimerKind;
import dev.leasehold.spec.sim.Scenario.Fault;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Simulation runs one {@link Scenario}: N instances of core's real {@link ElectionMachine},
 * each behind a simulated driver that mirrors {@code LeaderElector} (commands to calls, call
 * results and timeouts back to inputs, one timer per kind, revocation retries, close), against
 * {@link SimStore}, over a network that delays, loses and reorders messages, in virtual time.
 *
 * <p>Every machine step and every store change is followed by the invariant checks; the first
 * violation ends the run.
 *
 * <p>Deterministic: everything random is drawn from the scenario's seed; iteration orders are
 * fixed. Not thread-safe: one thread runs one simulation.
 */
final class Simulation implements SimStore.Listener {
  static final long MS = Scenario.MS;
  static final long S = Scenario.S;
  private static final TimerKind[] KINDS = TimerKind.values();

  /** Inv names the checked properties. */
  enum Inv {
    /** At most one candidate is MASTER with local clock before its deadline (admin-excused aside). */
    NO_OVERLAP,
    /**
     * Each ELECTED token is greater than every earlier one (a term whose key an operator deleted
     * while its CAS reply was in flight is excused, as for NO_OVERLAP).
     */
    FENCING_MONOTONIC,
    /** A MASTER before its deadline has K bound to its lease, with its token as create revision. */
    MASTER_OWNS_KEY,
    /**
     * Every lease a machine holds (MASTER's, CANDIDATE's or a follower's standby lease) exists in
     * the store while the machine's clock is before its deadline, and etcd's expiry of it is no
     * earlier than the true time at which that deadline passes: the deadline formula of §4.1.
     */
    HELD_LEASE_OUTLIVES_DEADLINE,
    /** Per elector: ELECTED, then exactly one event leaving MASTER; isLeader false when it is published. */
    EVENT_PAIRING,
    /** From quietAt, no stretch without a MASTER lasts longer than the scenario's liveness bound. */
    LIVENESS,
    /**
     * A MASTER elected once faults have stopped and every call sent before that has resolved
     * (quietAt + rpcTimeout) keeps leading until close.
     */
    QUIET_STABILITY,
    /** Shortly after close, K is gone unless bound to a crashed candidate's lease. */
    CLOSE_REMOVES_KEY,
    /** Within TTL after close (plus sweep and an in-flight grant), no lease and no key remain. */
    NO_LEASE_LEFT_BEHIND,
    /** Neither the machine nor the simulation throws (the real driver would log and drop the input). */
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

  private enum Member { MAJORITY, OLD_LEADER }

  private static final class Ev implements Comparable<Ev> {
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

  /** Clock is a candidate's monotonic clock: piecewise linear in true time. */
  static final class Clock {
    private long baseTrue;
    private long baseLocal;
    private double rate;

    Clock(long baseLocal, double rate) {
      this.baseLocal = baseLocal;
      this.rate = rate;
    }

    long local(long t) {
      return baseLocal + (long) Math.floor((t - baseTrue) * rate);
    }

    /** trueAt is the earliest true time, not before {@code now}, when the clock reads {@code l}. */
    long trueAt(long l, long now) {
      if (local(now) >= l) {
        return now;
      }
      long t = baseTrue + (long) Math.ceil((l - baseLocal) / rate);
      while (local(t) < l) {
        t++;
      }
      while (t - 1 > now && local(t - 1) >= l) {
        t--;
      }
      return Math.max(t, now);
    }

    void setRate(long now, double r) {
      baseLocal = local(now);
      baseTrue = now;
      rate = r;
    }

    double rate() {
      return rate;
    }
  }

  private static final class Rpc {
    boolean done;
    boolean applied;
  }

  private final class Watcher {
    final Proc p;
    final long id;
    final long from;
    Member member = Member.MAJORITY;
    boolean closed;
    boolean failed;
    long lastDeliver;

    Watcher(Proc p, long id, long from) {
      this.p = p;
      this.id = id;
      this.from = from;
    }
  }

  /** Proc is one incarnation of a candidate process: its machine and its driver's state. */
  final class Proc {
    final int slot;
    final String name;
    final ElectorConfig ec;
    final ProtocolConfig pc;
    final ElectionMachine m;
    final Clock clock;
    final long rpcTimeout;
    boolean crashed;
    boolean closing;
    boolean shutdown;
    boolean paused;
    final ArrayDeque<Runnable> held = new ArrayDeque<>();
    final Ev[] timers = new Ev[KINDS.length];
    final long[] timerAt = new long[KINDS.length];
    final long[] timerSeq = new long[KINDS.length];
    Watcher watcher;
    int closeRevokes;
    int grantsInFlight;
    boolean awaitingGrants;
    boolean grantWaitOver;
    // Checks.
    boolean inTerm;
    long electedAt;
    long termLease;
    long termToken;
    boolean unavailable;
    // Mutations.
    long lastAckTerm;
    boolean shadowActive;
    Object shadowReply;
    boolean inCloseStep;

    Proc(int slot, String name, ElectorConfig ec, ProtocolConfig pc, long seed, Clock clock) {
      this.slot = slot;
      this.name = name;
      this.ec = ec;
      this.pc = pc;
      this.m = new ElectionMachine(pc, new SplittableRandom(seed));
      this.clock = clock;
      this.rpcTimeout = ec.rpcTimeout().toNanos();
    }

    boolean dead() {
      return crashed || shutdown;
    }

    long local() {
      return clock.local(now);
    }

    boolean believes() {
      return !crashed && m.role() == ElectorState.MASTER && local() < m.deadline();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  final Scenario sc;
  final Mutation mutation;
  private final EnumSet<Inv> checked;
  private final Trace trace;
  private final PriorityQueue<Ev> queue = new PriorityQueue<>();
  private long seq;
  long now;
  private final SimStore store;
  private final SplittableRandom net;
  private final Proc[] current;
  private final boolean[] slotClosed;
  private final int[] incarnations;
  final Stats stats = new Stats();
  private long steps;
  private long events;
  // Network faults.
  private final long[] partitionedUntil;
  private final long[] slowUntil;
  private final long[] slowMax;
  private final long[] watchDelayUntil;
  private final long[] watchDelayMax;
  private final long[] watchSilentUntil;
  private long allSlowUntil;
  private long allSlowMax;
  private long lossyUntil;
  private double lossyP;
  private boolean quiet;
  private final double[] routeOld;
  private final List<Watcher> watchers = new ArrayList<>();
  /** Leases an operator revoked: every term on them is excused. */
  private final Set<Long> revokedByOperator = new HashSet<>();
  /** Incarnations of K (lease, create revision) an operator deleted: those terms are excused. */
  private final Set<Term> deletedByOperator = new HashSet<>();

  private record Term(long lease, long token) {}

  private boolean excused(long lease, long token) {
    return revokedByOperator.contains(lease) || deletedByOperator.contains(new Term(lease, token));
  }
  private long lastElectedToken;
  // Liveness.
  private boolean gapOpen = true;
  private long gapStart;
  private long beliefEnd = Long.MIN_VALUE;
  private long watchdogAt = -1;

  Simulation(Scenario sc, EnumSet<Inv> checked, int traceLines) {
    this.sc = sc;
    this.mutation = sc.mutation;
    this.checked = checked;
    this.trace = traceLines > 0 ? new Trace(traceLines) : null;
    this.net = new SplittableRandom(sc.runSeed());
    this.store = new SimStore(this, 1 + net.nextLong(1000), 0x7E57_0000_0000L + net.nextLong(1L << 32));
    int n = sc.n;
    current = new Proc[n];
    slotClosed = new boolean[n];
    incarnations = new int[n];
    partitionedUntil = new long[n];
    slowUntil = new long[n];
    slowMax = new long[n];
    watchDelayUntil = new long[n];
    watchDelayMax = new long[n];
    watchSilentUntil = new long[n];
    routeOld = new double[n];
  }

  static String fmt(long t) {
    return String.format("%.6fs", t / 1e9);
  }

  // ---- engine ----

  private Ev at(long t, Runnable r) {
    Ev e = new Ev(Math.max(t, now), seq++, r);
    queue.add(e);
    return e;
  }

  private void note(String s) {
    if (trace != null) {
      trace.add(fmt(now) + "  " + s);
    }
  }

  Result run() {
    Violation v = null;
    try {
      setUp();
      while (!queue.isEmpty()) {
        Ev e = queue.poll();
        if (e.cancelled) {
          continue;
        }
        if (e.t > sc.endAt) {
          break;
        }
        now = e.t;
        e.r.run();
        events++;
        check();
      }
    } catch (Violation x) {
      v = x;
    } catch (RuntimeException x) {
      StringBuilder b = new StringBuilder(x.toString());
      for (StackTraceElement e : x.getStackTrace()) {
        if (e.getClassName().startsWith("dev.leasehold")) {
          b.append("\n    at ").append(e);
        }
      }
      v = new Violation(Inv.NO_EXCEPTION, now, b.toString());
    }
    if (v != null) {
      note("VIOLATION " + v.getMessage());
      note("state: " + snapshot());
    }
    stats.inc(Stat.SCHEDULES);
    stats.add(Stat.STEPS, steps);
    stats.add(Stat.EVENTS, events);
    stats.add(Stat.VIRTUAL_MS, now / MS);
    stats.add(Stat.FAULTS, sc.faults.size());
    return new Result(sc, v, steps, events, stats, trace == null ? List.of() : trace.lines());
  }

  private void setUp() {
    for (int i = 0; i < sc.n; i++) {
      Proc p = spawn(i, sc.offsets[i], sc.rates[i]);
      at(sc.startAt[i], () -> deliver(p, new Input.Start()));
    }
    scheduleSweep(sc.sweepPhase);
    if (sc.backgroundWritesPerSecond > 0) {
      scheduleUnrelatedWrite();
    }
    for (Fault f : sc.faults) {
      at(f.at(), () -> apply(f));
    }
    at(sc.quietAt, this::beQuiet);
    at(sc.closeAt, this::closeAll);
    long keyCheck = sc.closeAt + 2 * (long) (sc.configs[0].rpcTimeout().toNanos() / (1 - sc.clockDrift)) + 20 * MS;
    at(keyCheck, this::checkKeyGoneAfterClose);
    at(sc.endAt, this::checkNothingLeftBehind);
  }

  private Proc spawn(int slot, long offset, double rate) {
    int inc = incarnations[slot]++;
    Proc p = new Proc(slot, "c" + slot + (inc == 0 ? "" : "#" + inc), sc.configs[slot], sc.protocolConfigs[slot],
        net.nextLong(), new Clock(offset, rate));
    current[slot] = p;
    note("spawn " + p + " id=" + sc.ids[slot] + String.format(" rate=%.4f", rate));
    return p;
  }

  private void scheduleSweep(long t) {
    at(t, () -> {
      store.sweep(now);
      scheduleSweep(now + Scenario.SWEEP);
    });
  }

  private void scheduleUnrelatedWrite() {
    long gap = (long) (-Math.log(1 - net.nextDouble()) / sc.backgroundWritesPerSecond * S);
    at(now + Math.max(1, gap), () -> {
      store.unrelatedWrite();
      scheduleUnrelatedWrite();
    });
  }

  // ---- the simulated driver (mirrors LeaderElector) ----

  /** clientEvent runs something in the candidate's process: held while paused, dropped when dead. */
  private void clientEvent(Proc p, Runnable r) {
    if (p.dead()) {
      return;
    }
    if (p.paused) {
      p.held.add(r);
    } else {
      r.run();
    }
  }

  private void deliver(Proc p, Input in) {
    clientEvent(p, () -> handle(p, in));
  }

  private void handle(Proc p, Input in) {
    if (p.dead()) {
      return;
    }
    if (mutation == Mutation.RECEIVE_TIME_DEADLINE && in instanceof Input.TimerFired tf
        && tf.timer() == TimerKind.RENEW && !p.shadowActive && p.m.leaseId() != 0
        && p.timerSeq[TimerKind.RENEW.ordinal()] == tf.seq()) {
      shadowRenew(p, tf);
      return;
    }
    step(p, in);
  }

  private void step(Proc p, Input in) {
    if (in instanceof Input.Close) {
      p.closing = true;
    }
    if (in instanceof EtcdInput.KeepAliveAcked a) {
      p.lastAckTerm = a.raftTerm();
    }
    if (in instanceof EtcdInput.ConfirmRead r && r.raftTerm() != p.lastAckTerm && p.m.role() == ElectorState.MASTER) {
      stats.inc(Stat.TERM_MISMATCH_RETRIES);
    }
    ElectorState before = p.m.role();
    long ln = p.local();
    List<Command> out = p.m.step(in, ln);
    steps++;
    if (trace != null) {
      trace.add(String.format("%s  %-5s %-9s -> %-9s in=%s out=%s", fmt(now), p.name, before, p.m.role(), in, out));
    }
    if (in instanceof EtcdInput.CampaignLost l && before == ElectorState.CANDIDATE && p.m.role() == ElectorState.MASTER) {
      stats.inc(Stat.RETRIED_CAS_FOUND_OWN_KEY);
    }
    if (in instanceof EtcdInput.CampaignWon && before == ElectorState.CANDIDATE && p.m.role() != ElectorState.MASTER) {
      stats.inc(Stat.COMMIT_TOO_LATE);
    }
    if (before == ElectorState.STOPPED && in instanceof EtcdInput.LeaseGranted) {
      stats.inc(Stat.GRANT_REVOKED_AFTER_CLOSE);
    }
    int revokes = 0;
    // Revocations close() waits for: those of the close step, and those of grants that were in
    // flight at close and reach the stopped machine.
    p.inCloseStep = (in instanceof Input.Close && before != ElectorState.STOPPED)
        || (in instanceof EtcdInput.LeaseGranted && before == ElectorState.STOPPED);
    for (Command c : out) {
      if (c instanceof Command.Release) {
        revokes++;
      }
      execute(p, c);
    }
    if (p.inCloseStep) {
      p.closeRevokes += revokes;
    }
    p.inCloseStep = false;
    if (in instanceof Input.Close && before != ElectorState.STOPPED && !p.shutdown) {
      // close() first waits for grants in flight (at most rpcTimeout + 100 ms): their replies
      // reach the stopped machine, which revokes them.
      if (p.grantsInFlight == 0) {
        grantWaitOver(p);
      } else {
        p.awaitingGrants = true;
        at(p.clock.trueAt(p.local() + p.rpcTimeout + 100 * MS, now), () -> grantWaitOver(p));
      }
    }
    check();
  }

  /**
   * grantWaitOver is close()'s second phase: wait for the revocations started so far (one attempt
   * each: closing stops retries), at most 2 × rpcTimeout, then shut the loop down: later inputs
   * are dropped.
   */
  private void grantWaitOver(Proc p) {
    if (p.shutdown || p.grantWaitOver) {
      return;
    }
    p.awaitingGrants = false;
    p.grantWaitOver = true;
    if (p.closeRevokes == 0) {
      shutdown(p);
    } else {
      at(p.clock.trueAt(p.local() + 2 * p.rpcTimeout, now), () -> shutdown(p));
    }
  }

  private void shutdown(Proc p) {
    if (p.shutdown) {
      return;
    }
    p.shutdown = true;
    for (int k = 0; k < KINDS.length; k++) {
      if (p.timers[k] != null) {
        p.timers[k].cancelled = true;
        p.timers[k] = null;
      }
    }
    if (p.watcher != null) {
      closeWatcher(p.watcher);
    }
    note(p + " shut down");
  }

  private void execute(Proc p, Command c) {
    if (c instanceof EtcdCommand.Poll q) {
      rpc(p, mem -> servePoll(mem, q.op()), new EtcdInput.PollFailed(q.op(), "timed out"), r -> handle(p, (Input) r));
    } else if (c instanceof EtcdCommand.GrantLease g) {
      p.grantsInFlight++;
      rpc(p, mem -> serveGrant(mem, p, g), new EtcdInput.GrantFailed(g.op(), "timed out"), r -> {
        p.grantsInFlight--;
        handle(p, (Input) r);
        if (p.awaitingGrants && p.grantsInFlight == 0) {
          grantWaitOver(p);
        }
      });
    } else if (c instanceof EtcdCommand.Campaign k) {
      Rpc[] self = new Rpc[1];
      self[0] = rpc(p, mem -> serveCampaign(mem, p, k, self[0]), new EtcdInput.CampaignFailed(k.op(), "timed out"), r -> {
        if (r instanceof EtcdInput.CampaignFailed && self[0].applied) {
          stats.inc(Stat.CAMPAIGN_APPLIED_BUT_FAILED);
        }
        handle(p, (Input) r);
      });
    } else if (c instanceof EtcdCommand.KeepAlive k) {
      if (p.shadowReply != null) {
        // RECEIVE_TIME_DEADLINE: the keep-alive already went out; answer with its reply.
        Object r = p.shadowReply;
        p.shadowReply = null;
        Input answer = r instanceof EtcdInput.KeepAliveAcked a
            ? new EtcdInput.KeepAliveAcked(k.op(), a.ttlSeconds(), a.raftTerm())
            : new EtcdInput.KeepAliveFailed(k.op(), ((EtcdInput.KeepAliveFailed) r).leaseNotFound(), "shadow");
        at(now, () -> deliver(p, answer));
        return;
      }
      rpc(p, mem -> serveKeepAlive(mem, k.op(), k.leaseId()),
          new EtcdInput.KeepAliveFailed(k.op(), false, "timed out"), r -> handle(p, (Input) r));
    } else if (c instanceof EtcdCommand.ConfirmRead q) {
      if (mutation == Mutation.ACK_ALONE_CONFIRMS) {
        // A MASTER is told its key is still its own; a standby follower's read (revision 0) is
        // ignored as a poll. Either way the ack's term "confirms" the renewal.
        long token = p.m.fencingToken();
        KeyRecord mine = token > 0 ? new KeyRecord(p.ec.candidateId(), p.m.leaseId(), token, token) : null;
        Input fake = new EtcdInput.ConfirmRead(q.op(), mine, 0, p.lastAckTerm);
        at(now, () -> deliver(p, fake));
        return;
      }
      rpc(p, mem -> serveConfirm(mem, q.op()), new EtcdInput.ConfirmFailed(q.op(), "timed out"), r -> handle(p, (Input) r));
    } else if (c instanceof EtcdCommand.ProbeLease q) {
      rpc(p, mem -> serveProbe(mem, q.op(), q.leaseId()), new EtcdInput.LeaseProbed(q.op(), false, false),
          r -> handle(p, (Input) r));
    } else if (c instanceof Command.Release r) {
      revoke(p, r.leaseId(), p.local() + p.ec.leaseTtl().toNanos() * 2, 0, p.inCloseStep);
    } else if (c instanceof EtcdCommand.Watch w) {
      watch(p, w);
    } else if (c instanceof EtcdCommand.CancelWatch w) {
      if (p.watcher != null && p.watcher.id == w.watchId()) {
        closeWatcher(p.watcher);
        p.watcher = null;
      }
    } else if (c instanceof Command.SetTimer t) {
      int k = ((TimerKind) t.timer()).ordinal();
      if (p.timers[k] != null) {
        p.timers[k].cancelled = true;
      }
      p.timerAt[k] = t.atNanos();
      p.timerSeq[k] = t.seq();
      armTimer(p, k);
    } else if (c instanceof Command.CancelTimer t) {
      int k = ((TimerKind) t.timer()).ordinal();
      if (p.timers[k] != null) {
        p.timers[k].cancelled = true;
        p.timers[k] = null;
      }
    } else if (c instanceof Command.Publish e) {
      published(p, e);
    } else {
      throw new IllegalStateException("unknown command " + c);
    }
  }

  private void armTimer(Proc p, int k) {
    long latency = net.nextLong(200_000);
    if (!quiet && net.nextInt(100) == 0) {
      latency += net.nextLong(20 * MS);
    }
    long due = p.clock.trueAt(p.timerAt[k], now) + latency;
    TimerKind kind = KINDS[k];
    long s = p.timerSeq[k];
    Ev[] self = new Ev[1];
    self[0] = at(due, () -> {
      if (p.timers[k] == self[0]) {
        p.timers[k] = null;
      }
      deliver(p, new Input.TimerFired(kind, s));
    });
    p.timers[k] = self[0];
  }

  /** RECEIVE_TIME_DEADLINE: send the keep-alive now, hand the machine its RENEW timer on the reply. */
  private void shadowRenew(Proc p, Input.TimerFired tf) {
    p.shadowActive = true;
    long lease = p.m.leaseId();
    rpc(p, mem -> serveKeepAlive(mem, -1, lease), new EtcdInput.KeepAliveFailed(-1, false, "timed out"), r -> {
      p.shadowReply = r;
      step(p, tf);
      p.shadowReply = null;
      p.shadowActive = false;
    });
  }

  private void revoke(Proc p, long lease, long giveUpLocal, int attempt, boolean atClose) {
    rpc(p, mem -> serveRevoke(mem, p, lease), Boolean.FALSE, r -> {
      if (atClose && p.closeRevokes > 0 && --p.closeRevokes == 0 && p.grantWaitOver) {
        shutdown(p);
      }
      if (!Boolean.FALSE.equals(r)) {
        return; // revoked, or etcd says not found
      }
      if (p.local() - giveUpLocal >= 0 || p.closing) {
        return; // the lease expires by itself
      }
      long delay = Math.min(p.ec.retryBackoffMax().toMillis(), p.ec.retryBackoffInitial().toMillis() << Math.min(attempt, 10));
      at(p.clock.trueAt(p.local() + delay * MS, now), () -> clientEvent(p, () -> revoke(p, lease, giveUpLocal, attempt + 1, false)));
    });
  }

  /**
   * rpc sends a request: it may be lost or delayed; the server applies it on arrival (even after
   * the client timed out); the reply may be lost or delayed; the client sees the reply if it
   * arrives before rpcTimeout on its clock, else {@code timeout}.
   */
  private Rpc rpc(Proc p, Function<Member, Object> serve, Object timeout, Consumer<Object> done) {
    stats.inc(Stat.REQUESTS);
    Rpc call = new Rpc();
    long timeoutAt = p.clock.trueAt(p.local() + p.rpcTimeout, now);
    if (lost(p.slot)) {
      at(timeoutAt, () -> complete(p, call, timeout, done));
      return call;
    }
    long arrive = now + delay(p.slot);
    boolean late = arrive >= timeoutAt;
    if (late) {
      at(timeoutAt, () -> complete(p, call, timeout, done));
    }
    at(arrive, () -> {
      Object reply = serve.apply(route(p.slot));
      if (late) {
        return;
      }
      if (reply == null || lost(p.slot)) {
        at(timeoutAt, () -> complete(p, call, timeout, done));
        return;
      }
      long back = now + delay(p.slot);
      if (back < timeoutAt) {
        at(back, () -> complete(p, call, reply, done));
      } else {
        at(timeoutAt, () -> complete(p, call, timeout, done));
      }
    });
    if (!quiet && sc.duplicateP > 0 && net.nextDouble() < sc.duplicateP) {
      // The client library retried the request: a second copy is applied too; whichever reply
      // arrives first (before the timeout) is the call's result.
      stats.inc(Stat.DUPLICATED_REQUESTS);
      long arrive2 = now + delay(p.slot) + net.nextLong(p.rpcTimeout);
      at(arrive2, () -> {
        Object reply = serve.apply(route(p.slot));
        if (reply != null && !lost(p.slot)) {
          long back = now + delay(p.slot);
          if (back < timeoutAt) {
            at(back, () -> complete(p, call, reply, done));
          }
        }
      });
    }
    return call;
  }

  private void complete(Proc p, Rpc call, Object r, Consumer<Object> done) {
    clientEvent(p, () -> {
      if (!call.done) {
        call.done = true;
        if (r instanceof EtcdInput.PollFailed || r instanceof EtcdInput.GrantFailed || r instanceof EtcdInput.CampaignFailed
            || r instanceof EtcdInput.ConfirmFailed || Boolean.FALSE.equals(r)) {
          stats.inc(Stat.REQUESTS_FAILED);
        }
        done.accept(r);
      }
    });
  }

  private boolean lost(int slot) {
    if (now < partitionedUntil[slot]) {
      return true;
    }
    return !quiet && now < lossyUntil && net.nextDouble() < lossyP;
  }

  private long delay(int slot) {
    long d = 50_000 + net.nextLong(Scenario.BASE_DELAY_MAX);
    if (quiet) {
      return d;
    }
    if (now < slowUntil[slot]) {
      return d + net.nextLong(slowMax[slot]);
    }
    if (now < allSlowUntil) {
      return d + net.nextLong(allSlowMax);
    }
    if (sc.spikeP > 0 && net.nextDouble() < sc.spikeP) {
      return d + net.nextLong(sc.spikeMax);
    }
    return d;
  }

  private Member route(int slot) {
    if (store.isolated && routeOld[slot] > 0 && net.nextDouble() < routeOld[slot]) {
      return Member.OLD_LEADER;
    }
    return Member.MAJORITY;
  }

  // ---- the simulated etcd's request handling ----

  /** noLeader: a member without a leader fails the request at once or lets it time out. */
  private Object noLeader(Object failure) {
    return net.nextBoolean() ? failure : null;
  }

  private Object servePoll(Member mem, long op) {
    if (mem == Member.OLD_LEADER) {
      if (mutation == Mutation.STALE_READS_ON_ISOLATED_LEADER) {
        stats.inc(Stat.STALE_READS_SERVED);
        return new EtcdInput.PollResult(op, store.isoKey, store.isoRevision);
      }
      return null; // a linearizable read needs a quorum: it times out
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.PollFailed(op, "etcdserver: no leader"));
    }
    return new EtcdInput.PollResult(op, store.key, store.revision);
  }

  private Object serveConfirm(Member mem, long op) {
    if (mem == Member.OLD_LEADER) {
      if (mutation == Mutation.STALE_READS_ON_ISOLATED_LEADER) {
        stats.inc(Stat.STALE_READS_SERVED);
        return new EtcdInput.ConfirmRead(op, store.isoKey, store.isoRevision, store.isoTerm);
      }
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.ConfirmFailed(op, "etcdserver: no leader"));
    }
    return new EtcdInput.ConfirmRead(op, store.key, store.revision, store.term);
  }

  private Object serveGrant(Member mem, Proc p, EtcdCommand.GrantLease g) {
    if (mem == Member.OLD_LEADER) {
      return null; // a proposal that cannot commit
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.GrantFailed(g.op(), "etcdserver: no leader"));
    }
    SimStore.Lease l = store.grant(g.ttlSeconds(), p, now);
    note("store: grant lease " + Long.toHexString(l.id) + " ttl=" + l.ttlSeconds + "s to " + p);
    return new EtcdInput.LeaseGranted(g.op(), l.id, l.ttlSeconds);
  }

  private Object serveCampaign(Member mem, Proc p, EtcdCommand.Campaign k, Rpc call) {
    if (mem == Member.OLD_LEADER) {
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.CampaignFailed(k.op(), "etcdserver: no leader"));
    }
    SimStore.TxnOutcome o = store.campaign(p.ec.candidateId(), k.leaseId(), now);
    if (o.won()) {
      call.applied = true;
      note("store: " + p + " put K lease=" + Long.toHexString(k.leaseId()) + " rev=" + o.revision());
      return new EtcdInput.CampaignWon(k.op(), o.revision());
    }
    if (o.leaseNotFound()) {
      return new EtcdInput.CampaignFailed(k.op(), "etcdserver: requested lease not found");
    }
    return new EtcdInput.CampaignLost(k.op(), o.holder(), o.revision());
  }

  private Object serveKeepAlive(Member mem, long op, long lease) {
    if (mem == Member.OLD_LEADER) {
      Long ttl = store.isoLeaseTtl.get(lease);
      if (ttl != null) {
        // The deposed leader acks from its own lessor; the majority's lease is not renewed.
        stats.inc(Stat.ISOLATED_LEADER_ACKS);
        return new EtcdInput.KeepAliveAcked(op, ttl, store.isoTerm);
      }
      return leaseNotFound(op, store.isoTerm);
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.KeepAliveFailed(op, false, "etcdserver: no leader"));
    }
    long ttl = store.keepAlive(lease, now);
    return ttl > 0 ? new EtcdInput.KeepAliveAcked(op, ttl, store.term) : leaseNotFound(op, store.term);
  }

  /** leaseNotFound is a keep-alive reply with TTL 0, or the driver's NOT_FOUND error mapping. */
  private Object leaseNotFound(long op, long term) {
    return net.nextBoolean()
        ? new EtcdInput.KeepAliveAcked(op, 0, term)
        : new EtcdInput.KeepAliveFailed(op, true, "etcdserver: requested lease not found");
  }

  private Object serveProbe(Member mem, long op, long lease) {
    if (mem == Member.OLD_LEADER) {
      return new EtcdInput.LeaseProbed(op, true, store.isoLeaseTtl.containsKey(lease));
    }
    if (!store.hasLeader) {
      return noLeader(new EtcdInput.LeaseProbed(op, false, false));
    }
    return new EtcdInput.LeaseProbed(op, true, store.timeToLive(lease, now) > 0);
  }

  private Object serveRevoke(Member mem, Proc p, long lease) {
    if (mem == Member.OLD_LEADER) {
      return null;
    }
    if (!store.hasLeader) {
      return noLeader(Boolean.FALSE);
    }
    return store.revoke(lease, "revoked by " + p) ? Boolean.TRUE : "not found";
  }

  // ---- watches ----

  private void watch(Proc p, EtcdCommand.Watch w) {
    if (p.watcher != null) {
      closeWatcher(p.watcher);
    }
    Watcher x = new Watcher(p, w.watchId(), w.fromRevision());
    p.watcher = x;
    if (lost(p.slot)) {
      // The stream never comes up: it errors after a while, or stays silent.
      if (net.nextBoolean()) {
        long after = net.nextLong(p.rpcTimeout);
        at(now + after, () -> failWatch(x, false, "stream error"));
      }
      return;
    }
    at(now + delay(p.slot), () -> registerWatch(x));
  }

  private void registerWatch(Watcher x) {
    if (x.closed || x.failed || x.p.dead()) {
      return;
    }
    x.member = route(x.p.slot);
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
    int slot = x.p.slot;
    if (x.failed || x.closed || now < partitionedUntil[slot] || (!quiet && now < watchSilentUntil[slot])) {
      return;
    }
    long d = delay(slot);
    if (!quiet && now < watchDelayUntil[slot]) {
      d += net.nextLong(watchDelayMax[slot]);
    }
    long when = Math.max(x.lastDeliver, now + d);
    x.lastDeliver = when;
    Input in = e.put() ? new EtcdInput.WatchPut(x.id, e.record(), e.revision()) : new EtcdInput.WatchDelete(x.id, e.revision());
    at(when, () -> clientEvent(x.p, () -> {
      if (!x.closed) {
        handle(x.p, in);
      }
    }));
  }

  private void failWatch(Watcher x, boolean compacted, String reason) {
    if (x.failed || x.closed) {
      return;
    }
    x.failed = true;
    watchers.remove(x);
    stats.inc(compacted ? Stat.WATCH_COMPACTED : Stat.WATCH_FAILURES);
    long when = Math.max(x.lastDeliver, now + delay(x.p.slot));
    Input in = new EtcdInput.WatchFailed(x.id, compacted, reason);
    at(when, () -> clientEvent(x.p, () -> {
      if (!x.closed) {
        handle(x.p, in);
      }
    }));
  }

  private void closeWatcher(Watcher x) {
    x.closed = true;
    watchers.remove(x);
  }

  @Override
  public void keyChanged(SimStore.KeyEvent e) {
    note("store: " + (e.put() ? "PUT K " + e.record() : "DELETE K") + " rev=" + e.revision());
    for (Watcher x : new ArrayList<>(watchers)) {
      if (x.member == Member.MAJORITY) {
        send(x, e);
      }
    }
  }

  @Override
  public void leaseRemoved(SimStore.Lease l, String why) {
    if (why.equals("expired")) {
      stats.inc(Stat.LEASES_EXPIRED_BY_SWEEP);
    }
    note("store: lease " + Long.toHexString(l.id) + " of " + l.owner + " removed (" + why + ")");
  }

  // ---- faults ----

  private void apply(Fault f) {
    note("FAULT " + f);
    Proc p = f.slot() >= 0 ? current[f.slot()] : null;
    switch (f.kind()) {
      case PARTITION -> {
        stats.inc(Stat.PARTITIONS);
        partitionedUntil[f.slot()] = Math.max(partitionedUntil[f.slot()], now + f.duration());
        Watcher x = p.watcher;
        if (x != null && net.nextInt(10) < 7) {
          long after = net.nextLong(Math.max(1, Math.min(f.duration(), 2 * S)));
          at(now + after, () -> failWatch(x, false, "connection lost"));
        }
      }
      case LOSSY -> {
        lossyUntil = now + f.duration();
        lossyP = f.x();
      }
      case SLOW -> {
        if (f.slot() < 0) {
          allSlowUntil = now + f.duration();
          allSlowMax = f.duration2();
        } else {
          slowUntil[f.slot()] = now + f.duration();
          slowMax[f.slot()] = f.duration2();
        }
      }
      case LEADER_CHANGE -> {
        stats.inc(Stat.LEADER_CHANGES);
        store.hasLeader = false;
        for (Watcher x : new ArrayList<>(watchers)) {
          if (net.nextInt(10) < 3) {
            failWatch(x, false, "leader changed");
          }
        }
        at(now + f.duration(), () -> {
          store.term++;
          store.hasLeader = true;
          store.promote(now);
          note("store: new leader, term " + store.term + "; leases promoted");
        });
      }
      case ISOLATE_LEADER -> {
        stats.inc(Stat.ISOLATIONS);
        store.isolate();
        SplittableRandom r = new SplittableRandom(f.sub());
        for (int i = 0; i < sc.n; i++) {
          int k = r.nextInt(3);
          routeOld[i] = k == 0 ? 0 : k == 1 ? 0.5 : 1.0;
        }
        for (Watcher x : watchers) {
          if (net.nextDouble() < routeOld[x.p.slot]) {
            x.member = Member.OLD_LEADER;
          }
        }
        note("store: leader of term " + store.isoTerm + " isolated; routes to it " + java.util.Arrays.toString(routeOld));
        at(now + f.duration2(), () -> {
          store.term += 1 + net.nextInt(2);
          store.hasLeader = true;
          store.promote(now);
          note("store: majority elected a leader, term " + store.term + "; leases promoted");
        });
        at(now + f.duration(), () -> {
          store.isolated = false;
          for (Watcher x : new ArrayList<>(watchers)) {
            if (x.member == Member.OLD_LEADER) {
              failWatch(x, false, "etcdserver: no leader");
            }
          }
          note("store: isolation of the term-" + store.isoTerm + " leader ends");
        });
      }
      case WATCH_DELAY -> {
        watchDelayUntil[f.slot()] = now + f.duration();
        watchDelayMax[f.slot()] = f.duration2();
      }
      case WATCH_DROP -> {
        if (p.watcher != null) {
          failWatch(p.watcher, f.x() < 0.3, f.x() < 0.3 ? "compacted" : "watch dropped");
        }
      }
      case WATCH_SILENT -> watchSilentUntil[f.slot()] = now + f.duration();
      case COMPACT -> {
        stats.inc(Stat.COMPACTIONS);
        store.compact();
        SplittableRandom r = new SplittableRandom(f.sub());
        for (Watcher x : new ArrayList<>(watchers)) {
          if (r.nextDouble() < f.x()) {
            failWatch(x, true, "compacted");
          }
        }
      }
      case CRASH -> {
        if (p.dead() || slotClosed[f.slot()]) {
          return;
        }
        stats.inc(Stat.CRASHES);
        p.crashed = true;
        if (p.watcher != null) {
          closeWatcher(p.watcher);
        }
        if (f.duration() >= 0) {
          int slot = f.slot();
          at(now + f.duration(), () -> {
            if (slotClosed[slot]) {
              return;
            }
            stats.inc(Stat.RESTARTS);
            double rate = sc.rates[slot];
            Proc q = spawn(slot, net.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L), rate);
            deliver(q, new Input.Start());
          });
        }
      }
      case PAUSE -> {
        if (p.dead() || p.paused) {
          return;
        }
        stats.inc(Stat.PAUSES);
        if (p.m.role() == ElectorState.MASTER) {
          stats.inc(Stat.PAUSED_MASTERS);
        }
        p.paused = true;
        at(now + f.duration(), () -> resume(p));
      }
      case RESIGN -> {
        stats.inc(Stat.RESIGNS);
        deliver(p, new Input.Resign());
      }
      case DRIFT -> {
        stats.inc(Stat.DRIFT_CHANGES);
        p.clock.setRate(now, f.x());
        for (int k = 0; k < KINDS.length; k++) {
          if (p.timers[k] != null) {
            p.timers[k].cancelled = true;
            armTimer(p, k);
          }
        }
      }
      case ADMIN_DELETE -> {
        KeyRecord k = store.key;
        if (k != null) {
          stats.inc(Stat.ADMIN_ACTIONS);
          deletedByOperator.add(new Term(k.leaseId(), k.createRevision()));
          store.adminDelete();
        }
      }
      case ADMIN_REVOKE -> {
        KeyRecord k = store.key;
        if (k != null) {
          stats.inc(Stat.ADMIN_ACTIONS);
          revokedByOperator.add(k.leaseId());
          store.revoke(k.leaseId(), "revoked by an operator");
        }
      }
      case CLOSE -> {
        if (slotClosed[f.slot()]) {
          return;
        }
        stats.inc(Stat.EARLY_CLOSES);
        slotClosed[f.slot()] = true;
        deliver(p, new Input.Close());
      }
      default -> throw new IllegalStateException(f.kind().toString());
    }
  }

  private void resume(Proc p) {
    if (!p.paused) {
      return;
    }
    p.paused = false;
    if (!p.crashed && p.m.role() == ElectorState.MASTER && p.local() >= p.m.deadline()) {
      stats.inc(Stat.MASTERS_RESUMED_PAST_DEADLINE);
    }
    note(p + " resumes, " + p.held.size() + " held");
    while (!p.held.isEmpty() && !p.paused && !p.dead()) {
      p.held.poll().run();
    }
  }

  private void beQuiet() {
    quiet = true;
    note("QUIET: faults over");
    for (Proc p : current) {
      resume(p);
    }
  }

  private void closeAll() {
    note("CLOSE ALL");
    for (int i = 0; i < sc.n; i++) {
      Proc p = current[i];
      if (!p.dead() && !slotClosed[i]) {
        slotClosed[i] = true;
        deliver(p, new Input.Close());
      }
    }
  }

  // ---- checks ----

  private void fail(Inv inv, String message) {
    if (checked.contains(inv)) {
      throw new Violation(inv, now, message);
    }
  }

  private void published(Proc p, Command.Publish e) {
    Cause c = e.cause();
    note(p + " publishes " + e.from() + "->" + e.to() + " " + c + " leader=" + e.leader());
    switch (c) {
      case ELECTED -> stats.inc(Stat.ELECTED);
      case LEASE_EXPIRED_LOCALLY -> stats.inc(Stat.LOST_DEADLINE);
      case KEY_DELETED -> stats.inc(Stat.LOST_KEY_DELETED);
      case LEASE_REVOKED -> stats.inc(Stat.LOST_LEASE_REVOKED);
      case KEY_TAKEN -> stats.inc(Stat.LOST_KEY_TAKEN);
      case RESIGNED -> stats.inc(Stat.LOST_RESIGNED);
      case CLOSED -> stats.inc(Stat.CLOSED);
      case STORE_UNAVAILABLE -> stats.inc(Stat.STORE_UNAVAILABLE);
      default -> { }
    }
    if (c == Cause.ELECTED) {
      if (e.from() != ElectorState.CANDIDATE || e.to() != ElectorState.MASTER) {
        fail(Inv.EVENT_PAIRING, p + " ELECTED published as " + e.from() + "->" + e.to());
      }
      if (p.inTerm) {
        fail(Inv.EVENT_PAIRING, p + " ELECTED again before its previous term ended");
      }
      long token = e.leader() == null ? -1 : e.leader().fencingToken();
      if (p.m.role() != ElectorState.MASTER || token != p.m.fencingToken()) {
        fail(Inv.EVENT_PAIRING, p + " ELECTED with token " + token + " but machine is " + p.m.role()
            + " token " + p.m.fencingToken());
      }
      if (excused(p.m.leaseId(), token)) {
        // An operator deleted K (or revoked this lease) while the CAS reply was in flight: a
        // later incarnation of K may already have been elected. Fenced writes with this token
        // fail (K's create revision differs); the order of ELECTED events is not guaranteed.
        if (token <= lastElectedToken) {
          stats.inc(Stat.STALE_ELECTED_AFTER_ADMIN_DELETE);
        }
      } else {
        if (token <= lastElectedToken) {
          fail(Inv.FENCING_MONOTONIC, p + " elected with token " + token + " after token " + lastElectedToken);
        }
        lastElectedToken = Math.max(lastElectedToken, token);
      }
      p.inTerm = true;
      p.electedAt = now;
      p.termLease = p.m.leaseId();
      p.termToken = token;
      return;
    }
    if (e.from() == ElectorState.MASTER && e.to() != ElectorState.MASTER) {
      if (!p.inTerm) {
        fail(Inv.EVENT_PAIRING, p + " published " + c + " leaving MASTER without an open term");
      }
      if (p.m.role() == ElectorState.MASTER) {
        fail(Inv.EVENT_PAIRING, p + " published " + c + " while still MASTER (isLeader would be true)");
      }
      if (c == Cause.LEADER_CHANGED || c == Cause.STORE_RECOVERED || c == Cause.STORE_UNAVAILABLE
          || c == Cause.SUBSCRIBED) {
        fail(Inv.EVENT_PAIRING, p + " left MASTER with cause " + c);
      }
      p.inTerm = false;
      if (c != Cause.CLOSED && p.electedAt >= sc.stableFrom && now < sc.closeAt && !excused(p.termLease, p.termToken)) {
        fail(Inv.QUIET_STABILITY, p + " elected at " + fmt(p.electedAt) + " (faults stopped at " + fmt(sc.quietAt)
            + ") lost with " + c);
      }
      return;
    }
    if (c == Cause.CLOSED) {
      if (p.inTerm) {
        fail(Inv.EVENT_PAIRING, p + " CLOSED from " + e.from() + " while its term is open");
      }
      return;
    }
    if (e.from() != e.to()) {
      fail(Inv.EVENT_PAIRING, p + " published " + c + " as " + e.from() + "->" + e.to());
    }
    if (c == Cause.STORE_UNAVAILABLE) {
      if (p.unavailable) {
        fail(Inv.EVENT_PAIRING, p + " STORE_UNAVAILABLE twice without STORE_RECOVERED");
      }
      p.unavailable = true;
    } else if (c == Cause.STORE_RECOVERED) {
      if (!p.unavailable) {
        fail(Inv.EVENT_PAIRING, p + " STORE_RECOVERED without STORE_UNAVAILABLE");
      }
      p.unavailable = false;
    }
  }

  private void check() {
    int believers = 0;
    Proc first = null;
    long end = Long.MIN_VALUE;
    for (Proc p : current) {
      if (p.crashed || p.m.leaseId() == 0 || revokedByOperator.contains(p.m.leaseId())) {
        continue;
      }
      long ln = p.local();
      if (ln >= p.m.deadline()) {
        continue;
      }
      if (checked.contains(Inv.HELD_LEASE_OUTLIVES_DEADLINE)) {
        long tLease = p.clock.trueAt(p.m.deadline(), now);
        SimStore.Lease l = store.leases.get(p.m.leaseId());
        if (l == null || l.expiry < tLease) {
          fail(Inv.HELD_LEASE_OUTLIVES_DEADLINE, p + " (" + p.m.role() + ") holds lease "
              + Long.toHexString(p.m.leaseId()) + " until " + fmt(tLease) + " (deadline in " + fmt(p.m.deadline() - ln)
              + " local) but etcd " + (l == null ? "no longer has it" : "expires it at " + fmt(l.expiry)));
        }
      }
      if (p.m.role() != ElectorState.MASTER || excused(p.m.leaseId(), p.m.fencingToken())) {
        continue;
      }
      believers++;
      long tEnd = p.clock.trueAt(p.m.deadline(), now);
      end = Math.max(end, tEnd);
      if (checked.contains(Inv.MASTER_OWNS_KEY)) {
        KeyRecord k = store.key;
        if (k == null || k.leaseId() != p.m.leaseId() || k.createRevision() != p.m.fencingToken()) {
          fail(Inv.MASTER_OWNS_KEY, p + " is MASTER (lease " + Long.toHexString(p.m.leaseId()) + ", token "
              + p.m.fencingToken() + ", deadline in " + fmt(p.m.deadline() - p.local()) + ") but K is " + k);
        }
      }
      if (first != null) {
        fail(Inv.NO_OVERLAP, first + " (token " + first.m.fencingToken() + ", deadline in "
            + fmt(first.m.deadline() - first.local()) + ") and " + p + " (token " + p.m.fencingToken()
            + ", deadline in " + fmt(p.m.deadline() - p.local()) + ") are both MASTER");
      }
      first = p;
    }
    // Liveness: measure stretches without a believing MASTER.
    if (believers > 0) {
      if (gapOpen && now >= sc.quietAt) {
        long from = Math.max(gapStart, sc.quietAt);
        recordTimeToMaster(now - from);
      }
      gapOpen = false;
      beliefEnd = end;
    } else if (!gapOpen) {
      gapOpen = true;
      gapStart = Math.min(now, beliefEnd);
    }
    if (gapOpen && now >= sc.quietAt && now < sc.closeAt) {
      long from = Math.max(gapStart, sc.quietAt);
      if (now - from > sc.livenessBound) {
        fail(Inv.LIVENESS, "no MASTER since " + fmt(from) + " (bound " + fmt(sc.livenessBound) + "); "
            + snapshot());
      }
      long due = from + sc.livenessBound + 1;
      if (watchdogAt != due) {
        watchdogAt = due;
        at(due, () -> { });
      }
    }
  }

  private void recordTimeToMaster(long gap) {
    stats.max(Stat.MAX_TIME_TO_MASTER_AFTER_QUIET_MS, gap / MS);
    stats.max(Stat.MAX_TIME_TO_MASTER_PER_MILLE_OF_BOUND, gap * 1000 / sc.livenessBound);
  }

  private void checkKeyGoneAfterClose() {
    KeyRecord k = store.key;
    if (k != null) {
      SimStore.Lease l = store.leases.get(k.leaseId());
      boolean crashedOwner = l != null && l.owner instanceof Proc p && p.crashed;
      if (!crashedOwner) {
        fail(Inv.CLOSE_REMOVES_KEY, "K is still " + k + " after every candidate closed; " + snapshot());
      }
    }
  }

  private void checkNothingLeftBehind() {
    if (store.key != null || !store.leases.isEmpty()) {
      StringBuilder b = new StringBuilder();
      for (SimStore.Lease l : store.leases.values()) {
        b.append(Long.toHexString(l.id)).append(" of ").append(l.owner).append(" expiring ").append(fmt(l.expiry))
            .append("; ");
      }
      fail(Inv.NO_LEASE_LEFT_BEHIND, "K=" + store.key + " leases: " + b);
    }
    for (int i = 0; i < sc.n; i++) {
      Proc p = current[i];
      if (!p.crashed && p.inTerm) {
        fail(Inv.EVENT_PAIRING, p + " closed with its term still open");
      }
    }
  }

  private String snapshot() {
    StringBuilder b = new StringBuilder();
    b.append("store{rev=").append(store.revision).append(" term=").append(store.term)
        .append(" leader=").append(store.hasLeader).append(" isolated=").append(store.isolated)
        .append(" K=").append(store.key).append(" leases=[");
    for (SimStore.Lease l : store.leases.values()) {
      b.append(Long.toHexString(l.id)).append("@").append(fmt(l.expiry)).append(" ");
    }
    b.append("]}");
    for (Proc p : current) {
      b.append(" ").append(p).append("{").append(p.crashed ? "crashed " : "").append(p.paused ? "paused " : "")
          .append(p.shutdown ? "shutdown " : "").append(p.m.role()).append(" lease=")
          .append(Long.toHexString(p.m.leaseId())).append(" token=").append(p.m.fencingToken());
      if (p.m.role() == ElectorState.MASTER) {
        b.append(" deadlineIn=").append(fmt(p.m.deadline() - p.local()));
      }
      b.append("}");
    }
    return b.toString();
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

  static EnumSet<Inv> all() {
    return EnumSet.allOf(Inv.class);
  }
}
