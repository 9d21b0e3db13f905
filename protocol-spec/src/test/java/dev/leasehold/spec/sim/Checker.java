package dev.leasehold.spec.sim;

import dev.leasehold.ElectorState;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.protocol.KeyRecord;
import dev.leasehold.runtime.Command;
import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Checker holds the invariants ({@link Inv}) over the store and the candidates. What a user
 * can observe is read from the real runtime at check time: {@code isLeader()},
 * {@code leadership()} and the {@code Leadership} handles its listener was given
 * ({@link Pairing#believed()}). What only the machine knows (the lease it holds and its deadline)
 * is read from the machine. Each check runs after every simulation event.
 *
 * <p>Not thread-safe: one simulation owns it.
 */
final class Checker {
  private final Engine engine;
  private final Scenario sc;
  private final SimStore store;
  private final Proc[] current;
  /** Leases an operator revoked: every term on them is excused. */
  final Set<Long> revokedByOperator = new HashSet<>();
  /** Terms of K (lease, token = K's mod revision) an operator deleted: those terms are excused. */
  final Set<Term> deletedByOperator = new HashSet<>();
  private final Map<Long, Long> releasedAt = new HashMap<>();
  private long lastElectedToken;
  // Liveness.
  private boolean gapOpen = true;
  private long gapStart;
  private long beliefEnd = Long.MIN_VALUE;
  private long watchdogAt = -1;

  record Term(long lease, long token) {}

  /** Published is what the machine's own events said of its current term. */
  static final class Published {
    boolean inTerm;
    long electedAt;
    long lease;
    long token;
  }

  Checker(Engine engine, Scenario sc, SimStore store, Proc[] current) {
    this.engine = engine;
    this.sc = sc;
    this.store = store;
    this.current = current;
  }

  boolean excused(long lease, long token) {
    return revokedByOperator.contains(lease) || deletedByOperator.contains(new Term(lease, token));
  }

  void fail(Inv inv, String message) {
    engine.fail(inv, message);
  }

  /** failed reports a throwable, with the frames of our own code. */
  void failed(Inv inv, String message, Throwable t) {
    StringBuilder b = new StringBuilder(message).append(": ").append(t);
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().startsWith("dev.leasehold")) {
        b.append("\n    at ").append(e);
      }
    }
    fail(inv, b.toString());
  }

  // ---- at publication (the machine's Publish command, on the loop) ----

  void published(Proc p, Command.Publish e) {
    Cause c = e.cause();
    p.events.expected.add(e);
    engine.note(p + " publishes " + e.from() + "->" + e.to() + " " + c + " leader=" + e.leader());
    count(c);
    Published pub = p.published;
    if (c == Cause.ELECTED) {
      long token = e.leader() == null ? -1 : e.leader().fencingToken();
      if (p.m.role() != ElectorState.MASTER || token != p.termToken() || token != e.term().token()) {
        fail(Inv.EVENT_PAIRING, p + " ELECTED with token " + token + " (term " + e.term() + ") but machine is "
            + p.m.role() + " token " + p.termToken());
      }
      if (excused(p.m.leaseId(), token)) {
        // An operator deleted K (or revoked this lease) while the CAS reply was in flight: a
        // later incarnation of K may already have been elected. Fenced writes with this token
        // fail (K's mod revision differs); the order of ELECTED events is not guaranteed.
        if (token <= lastElectedToken) {
          engine.stats.inc(Stat.STALE_ELECTED_AFTER_ADMIN_DELETE);
        }
      } else {
        if (token <= lastElectedToken) {
          fail(Inv.FENCING_MONOTONIC, p + " elected with token " + token + " after token " + lastElectedToken);
        }
        lastElectedToken = Math.max(lastElectedToken, token);
      }
      pub.inTerm = true;
      pub.electedAt = engine.now;
      pub.lease = p.m.leaseId();
      pub.token = token;
    } else if (e.from() == ElectorState.MASTER && e.to() != ElectorState.MASTER) {
      if (p.m.role() == ElectorState.MASTER) {
        fail(Inv.EVENT_PAIRING, p + " published " + c + " while its machine is still MASTER");
      }
      // A preemption is a move the leaders make among themselves, after faults too.
      if (pub.inTerm && c != Cause.CLOSED && c != Cause.PREEMPTED && pub.electedAt >= sc.stableFrom
          && engine.now < sc.closeAt
          && !excused(pub.lease, pub.token)) {
        fail(Inv.QUIET_STABILITY, p + " elected at " + Simulation.fmt(pub.electedAt) + " (faults stopped at "
            + Simulation.fmt(sc.quietAt) + ") lost with " + c);
      }
      pub.inTerm = false;
    }
  }

  private void count(Cause c) {
    switch (c) {
      case ELECTED -> engine.stats.inc(Stat.ELECTED);
      case LEASE_EXPIRED_LOCALLY -> engine.stats.inc(Stat.LOST_DEADLINE);
      case KEY_DELETED -> engine.stats.inc(Stat.LOST_KEY_DELETED);
      case LEASE_REVOKED -> engine.stats.inc(Stat.LOST_LEASE_REVOKED);
      case KEY_TAKEN -> engine.stats.inc(Stat.LOST_KEY_TAKEN);
      case RESIGNED -> engine.stats.inc(Stat.LOST_RESIGNED);
      case TRANSFERRED -> engine.stats.inc(Stat.LOST_TRANSFERRED);
      case UNHEALTHY -> engine.stats.inc(Stat.LOST_UNHEALTHY);
      case PREEMPTED -> engine.stats.inc(Stat.LOST_PREEMPTED);
      case CLOSED -> engine.stats.inc(Stat.CLOSED);
      case STORE_UNAVAILABLE -> engine.stats.inc(Stat.STORE_UNAVAILABLE);
      default -> { }
    }
  }

  // ---- after every event ----

  void check() {
    long now = engine.now;
    int believers = 0;
    Proc first = null;
    Leadership firstTerm = null;
    long end = Long.MIN_VALUE;
    for (Proc p : current) {
      if (p.crashed) {
        continue;
      }
      checkHeldLease(p, now);
      if (engine.checks(Inv.LEADERSHIP_AGREES_WITH_IS_LEADER)) {
        Leadership odd = p.events.disagreeing();
        if (odd != null) {
          fail(Inv.LEADERSHIP_AGREES_WITH_IS_LEADER, p + "'s " + odd + " says isValid() but isLeader() is "
              + p.elector.isLeader() + " with leadership() " + p.elector.leadership().orElse(null)
              + " (machine " + p.m.role() + ")");
        }
      }
      Leadership t = p.events.believed();
      if (t == null || excused(t.leaseId(), t.fencingToken())) {
        continue;
      }
      believers++;
      boolean machineTerm = p.m.role() == ElectorState.MASTER && p.termToken() == t.fencingToken();
      end = Math.max(end, machineTerm ? p.clock.trueAt(p.m.deadline(), now) : now);
      if (engine.checks(Inv.MASTER_OWNS_KEY)) {
        KeyRecord k = store.key;
        if (k == null || k.leaseId() != t.leaseId() || k.token() != t.fencingToken()) {
          fail(Inv.MASTER_OWNS_KEY, p + " is leader (isLeader " + p.elector.isLeader() + ", " + t + ") but K is " + k);
        }
      }
      if (first != null) {
        fail(Inv.NO_OVERLAP, first + " (isLeader " + first.elector.isLeader() + ", " + firstTerm + ") and " + p
            + " (isLeader " + p.elector.isLeader() + ", " + t + ") both lead");
      }
      first = p;
      firstTerm = t;
    }
    checkLiveness(now, believers, end);
  }

  /** checkHeldLease: the machine's lease outlives its deadline in etcd (§4.1, standby leases too). */
  private void checkHeldLease(Proc p, long now) {
    long lease = p.m.leaseId();
    if (lease == 0 || revokedByOperator.contains(lease) || !engine.checks(Inv.HELD_LEASE_OUTLIVES_DEADLINE)) {
      return;
    }
    long ln = p.local(now);
    if (ln >= p.m.deadline()) {
      return;
    }
    long tLease = p.clock.trueAt(p.m.deadline(), now);
    SimStore.Lease l = store.leases.get(lease);
    if (l == null || l.expiry < tLease) {
      fail(Inv.HELD_LEASE_OUTLIVES_DEADLINE, p + " (" + p.m.role() + ") holds lease " + Long.toHexString(lease)
          + " until " + Simulation.fmt(tLease) + " (deadline in " + Simulation.fmt(p.m.deadline() - ln)
          + " local) but etcd " + (l == null ? "no longer has it" : "expires it at " + Simulation.fmt(l.expiry)));
    }
  }

  private void checkLiveness(long now, int believers, long end) {
    if (believers > 0) {
      if (gapOpen && now >= sc.quietAt) {
        long gap = now - Math.max(gapStart, sc.quietAt);
        engine.stats.max(Stat.MAX_TIME_TO_MASTER_AFTER_QUIET_MS, gap / Scenario.MS);
        engine.stats.max(Stat.MAX_TIME_TO_MASTER_PER_MILLE_OF_BOUND, gap * 1000 / sc.livenessBound);
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
        fail(Inv.LIVENESS, "no leader since " + Simulation.fmt(from) + " (bound " + Simulation.fmt(sc.livenessBound)
            + "); " + snapshot());
      }
      long due = from + sc.livenessBound + 1;
      if (watchdogAt != due) {
        watchdogAt = due;
        engine.at(due, () -> { });
      }
    }
  }

  // ---- releases ----

  /**
   * releaseAttempted notes the runtime's attempt to give a lease back. From the first attempt
   * on, the runtime owes a revoke that sticks: once faults have stopped, one attempt pending
   * (rpcTimeout) and one backoff (backoffMax) later, a retry reaches a healthy etcd.
   */
  void releaseAttempted(Proc p, long lease) {
    engine.stats.inc(Stat.RELEASE_ATTEMPTS);
    if (releasedAt.putIfAbsent(lease, engine.now) != null) {
      return;
    }
    long firstLocal = p.local(engine.now);
    double slow = 1 - sc.clockDrift;
    long bound = (long) ((p.rpcTimeout + p.ec.retryBackoffMax().toNanos()) / slow) + 60 * Scenario.MS;
    long at = Math.max(engine.now, sc.quietAt) + bound;
    long released = engine.now;
    engine.at(at, () -> checkReleased(p, lease, released, firstLocal));
  }

  private void checkReleased(Proc p, long lease, long released, long firstLocal) {
    long now = engine.now;
    if (p.crashed || p.closeRequested) {
      return; // a crash abandons it; close waits for releases only so long
    }
    if (p.local(now) - (firstLocal + 2 * p.ec.leaseTtl().toNanos()) >= 0) {
      return; // the runtime may have given up: the lease has expired by itself by then
    }
    SimStore.Lease l = store.leases.get(lease);
    if (l != null && l.expiry > now) {
      fail(Inv.RELEASED_LEASE_REVOKED, p + " began releasing lease " + Long.toHexString(lease) + " at "
          + Simulation.fmt(released) + "; faults stopped at " + Simulation.fmt(sc.quietAt) + ", and etcd still has it"
          + " (expiring at " + Simulation.fmt(l.expiry) + "): no retry revoked it");
    }
  }

  // ---- after close ----

  void checkKeyGoneAfterClose() {
    KeyRecord k = store.key;
    if (k != null) {
      SimStore.Lease l = store.leases.get(k.leaseId());
      boolean crashedOwner = l != null && l.owner instanceof Proc p && p.crashed;
      if (!crashedOwner) {
        fail(Inv.CLOSE_REMOVES_KEY, "K is still " + k + " after every candidate closed; " + snapshot());
      }
    }
  }

  /** checkClosesDone: every close a live candidate began has completed. */
  void checkClosesDone() {
    for (Proc p : current) {
      if (!p.crashed && p.closeRequested && p.closedAt < 0) {
        fail(Inv.CLOSE_COMPLETES, p + " began closing at " + Simulation.fmt(p.closeRequestedAt)
            + " and closeAsync() has not completed; " + snapshot());
      }
    }
  }

  void checkNothingLeftBehind() {
    if (store.key != null || !store.leases.isEmpty() || !store.queue.isEmpty()) {
      StringBuilder b = new StringBuilder();
      for (SimStore.Lease l : store.leases.values()) {
        b.append(Long.toHexString(l.id)).append(" of ").append(l.owner).append(" expiring ")
            .append(Simulation.fmt(l.expiry)).append("; ");
      }
      fail(Inv.NO_LEASE_LEFT_BEHIND, "K=" + store.key + " queue=" + store.queued() + " leases: " + b);
    }
    checkClosesDone();
    for (Proc p : current) {
      if (p.crashed) {
        continue;
      }
      if (p.events.inTerm) {
        fail(Inv.EVENT_PAIRING, p + " closed with its term still open");
      }
      if (!p.events.expected.isEmpty()) {
        fail(Inv.EVENT_PAIRING, p + " published " + p.events.expected + " that its listener never received");
      }
      if (!p.events.awaitingLost.isEmpty()) {
        fail(Inv.EVENT_PAIRING, p + ": whenLost() never completed for " + p.events.awaitingLost);
      }
    }
  }

  String snapshot() {
    StringBuilder b = new StringBuilder();
    b.append("store{rev=").append(store.revision).append(" term=").append(store.term)
        .append(" leader=").append(store.hasLeader).append(" isolated=").append(store.isolated)
        .append(" K=").append(store.key).append(" queue=").append(store.queued()).append(" leases=[");
    for (SimStore.Lease l : store.leases.values()) {
      b.append(Long.toHexString(l.id)).append("@").append(Simulation.fmt(l.expiry)).append(" ");
    }
    b.append("]}");
    for (Proc p : current) {
      b.append(" ").append(p).append("{").append(p.crashed ? "crashed " : "").append(p.paused ? "paused " : "")
          .append(p.closedAt >= 0 ? "closed " : p.closeRequested ? "closing " : "")
          .append(p.m.role()).append(" isLeader=").append(p.elector.isLeader())
          .append(" lease=").append(Long.toHexString(p.m.leaseId())).append(" token=").append(p.termToken());
      if (p.m.role() == ElectorState.MASTER) {
        b.append(" deadlineIn=").append(Simulation.fmt(p.m.deadline() - p.local(engine.now)));
      }
      b.append("}");
    }
    return b.toString();
  }
}
