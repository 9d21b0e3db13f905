package dev.leasehold.spec.sim;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipListener;
import dev.leasehold.runtime.Command;
import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Pairing is the listener each simulated candidate subscribes with
 * {@code onLeadershipChanged}, before it starts; the runtime delivers to it through the
 * simulated dispatcher, at a later step than the loop that published. It checks
 * {@link Inv#EVENT_PAIRING} on what a user sees:
 *
 * <ul>
 *   <li>the first event is SUBSCRIBED, and then exactly the events the machine published, in
 *       order, none lost, none added;
 *   <li>ELECTED goes CANDIDATE to MASTER and carries a {@link Leadership} with the event's token;
 *       then exactly one event leaves MASTER before the next ELECTED;
 *   <li>when that loss arrives, the term's {@code Leadership.isValid()} is already false, and
 *       {@code isLeader()} is false unless a newer term has begun; {@code whenLost()} completes
 *       with an event that leaves MASTER;
 *   <li>STORE_UNAVAILABLE and STORE_RECOVERED alternate.
 * </ul>
 *
 * <p>It also keeps the handles it was given, for {@link Checker}'s overlap check: an
 * application acts on them. Not thread-safe: the dispatcher runs it on the simulation's thread.
 */
final class Pairing implements LeadershipListener {
  private final Proc p;
  private final Engine engine;
  private final Checker checker;
  /** expected holds the events the machine published that the listener has not yet received. */
  final ArrayDeque<Command.Publish> expected = new ArrayDeque<>();
  /** awaitingLost holds the handles whose whenLost() has not completed. */
  final Set<Leadership> awaitingLost = new LinkedHashSet<>();
  private final List<Leadership> handles = new ArrayList<>();
  private boolean subscribed;
  private boolean unavailable;
  boolean inTerm;
  private Leadership term;

  Pairing(Proc p, Engine engine, Checker checker) {
    this.p = p;
    this.engine = engine;
    this.checker = checker;
  }

  /**
   * believed is the term this process may act on now: the one {@code isLeader()} vouches for,
   * or any handle it was given that still says {@code isValid()}; null when none.
   */
  Leadership believed() {
    if (p.elector.isLeader()) {
      Leadership current = p.elector.leadership().orElse(null);
      if (current != null) {
        return current;
      }
    }
    for (Iterator<Leadership> it = handles.iterator(); it.hasNext(); ) {
      Leadership h = it.next();
      if (h.isValid()) {
        return h;
      }
      if (h != term) {
        it.remove(); // its loss was delivered and it has turned invalid
      }
    }
    return null;
  }

  /**
   * disagreeing is a handle this process was given that says {@code isValid()} while
   * {@code isLeader()} does not vouch for it ({@code leadership()} is another term or none), or
   * null: Leadership's contract is to be valid only while the elector is MASTER for its term.
   */
  Leadership disagreeing() {
    Leadership current = p.elector.isLeader() ? p.elector.leadership().orElse(null) : null;
    for (Leadership h : handles) {
      if (h != current && h.isValid()) {
        return h;
      }
    }
    return null;
  }

  @Override
  public void onLeadershipChanged(LeadershipEvent e) {
    engine.stats.inc(Stat.LISTENER_EVENTS);
    if (!subscribed) {
      subscribed = true;
      if (e.cause() != Cause.SUBSCRIBED) {
        fail("first event is " + describe(e) + ", not SUBSCRIBED");
      }
      return;
    }
    Command.Publish want = expected.poll();
    if (want == null || want.from() != e.from() || want.to() != e.to() || want.cause() != e.cause()) {
      fail("listener received " + describe(e) + " but the machine published "
          + (want == null ? "nothing more" : want.from() + "->" + want.to() + " " + want.cause()));
      return;
    }
    Cause c = e.cause();
    if (c == Cause.ELECTED) {
      elected(e);
    } else if (e.isLost()) {
      lost(e);
    } else if (c == Cause.CLOSED) {
      if (inTerm) {
        fail("CLOSED from " + e.from() + " while its term is open");
      }
    } else {
      if (e.from() != e.to()) {
        fail(describe(e) + " changes role");
      }
      if (c == Cause.STORE_UNAVAILABLE) {
        if (unavailable) {
          fail("STORE_UNAVAILABLE twice without STORE_RECOVERED");
        }
        unavailable = true;
      } else if (c == Cause.STORE_RECOVERED) {
        if (!unavailable) {
          fail("STORE_RECOVERED without STORE_UNAVAILABLE");
        }
        unavailable = false;
      }
    }
  }

  private void elected(LeadershipEvent e) {
    if (e.from() != ElectorState.CANDIDATE || e.to() != ElectorState.MASTER) {
      fail("ELECTED delivered as " + e.from() + "->" + e.to());
    }
    if (inTerm) {
      fail("ELECTED again before its previous term ended");
    }
    long token = e.leader().map(LeaderInfo::fencingToken).orElse(-1L);
    Leadership h = e.leadership().orElse(null);
    if (h == null || h.fencingToken() != token || !h.candidateId().equals(p.ec.candidateId())) {
      fail("ELECTED with token " + token + " carries leadership " + h);
    }
    inTerm = true;
    term = h;
    if (h != null) {
      handles.add(h);
      awaitingLost.add(h);
      h.whenLost().whenComplete((lostEvent, failure) -> {
        awaitingLost.remove(h);
        if (lostEvent == null || !lostEvent.isLost()) {
          fail("whenLost() of token " + h.fencingToken() + " completed with " + lostEvent + " / " + failure);
        }
      });
    }
  }

  private void lost(LeadershipEvent e) {
    if (!inTerm) {
      fail(e.cause() + " leaves MASTER without an open term");
    }
    if (term != null && term.isValid()) {
      fail(e.cause() + " delivered while the term's Leadership (token " + term.fencingToken()
          + ") still says isValid()");
    }
    if (term != null && p.elector.isLeader() && p.elector.leadership().orElse(null) == term) {
      fail(e.cause() + " delivered while isLeader() is still true for token " + term.fencingToken());
    }
    inTerm = false;
    term = null;
  }

  private static String describe(LeadershipEvent e) {
    return e.from() + "->" + e.to() + " " + e.cause();
  }

  private void fail(String message) {
    checker.fail(Inv.EVENT_PAIRING, p + ": " + message);
  }
}
