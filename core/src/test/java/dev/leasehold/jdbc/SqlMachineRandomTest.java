package dev.leasehold.jdbc;

import static dev.leasehold.jdbc.SqlMachineHarness.MS;
import static dev.leasehold.jdbc.SqlMachineHarness.OTHER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.PublishedMoves;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.Transitions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random answers, failures, late answers, timers and resigns: whatever happens, events pair
 * up, every move is legal, a MASTER's deadline lies ahead when it is elected, and the row is
 * always released before its lock.
 */
class SqlMachineRandomTest {
  private static final int SEEDS = 400;
  private static final int STEPS = 300;

  private final Map<Cause, Integer> seen = new EnumMap<>(Cause.class);

  @Test
  void eventsPairUpAndEveryMoveIsLegalWhateverTheStoreSays() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      run(seed);
    }
    // Not vacuous: the runs went through every way in and out of MASTER.
    for (Cause c : List.of(Cause.ELECTED, Cause.RESIGNED, Cause.STORE_UNAVAILABLE, Cause.KEY_TAKEN,
        Cause.KEY_DELETED, Cause.LEASE_EXPIRED_LOCALLY, Cause.STORE_RECOVERED, Cause.LEADER_CHANGED)) {
      assertTrue(seen.getOrDefault(c, 0) > 10, c + " seen " + seen.getOrDefault(c, 0) + " times: " + seen);
    }
  }

  private void run(long seed) {
    SplittableRandom r = new SplittableRandom(seed * 7919);
    SqlMachineHarness h = new SqlMachineHarness(seed);
    List<StoreCall> pending = new ArrayList<>();
    List<StoreCall> answered = new ArrayList<>();
    Map<SqlTimer, Command.SetTimer> timers = new EnumMap<>(SqlTimer.class);
    List<HolderToken> ours = new ArrayList<>();
    Checker check = new Checker(seed);
    h.step(new Input.Start());
    absorb(h, pending, timers, ours, check);
    for (int i = 0; i < STEPS; i++) {
      int pick = r.nextInt(100);
      if (pick < 60 && !pending.isEmpty()) {
        StoreCall c = pending.remove(r.nextInt(pending.size()));
        answered.add(c);
        h.now += r.nextLong(20 * MS);
        if (r.nextInt(10) == 0) {
          h.session++;
        }
        h.step(answer(c, r, h.session, ours));
      } else if (pick < 85 && !timers.isEmpty()) {
        List<Command.SetTimer> armed = new ArrayList<>(timers.values());
        Command.SetTimer t = armed.get(r.nextInt(armed.size()));
        timers.remove((SqlTimer) t.timer());
        h.fire(t);
      } else if (pick < 90) {
        h.step(new Input.Resign());
      } else if (pick < 95 && !answered.isEmpty()) {
        StoreCall late = answered.get(r.nextInt(answered.size()));
        h.step(answer(late, r, h.session, ours));
      } else {
        h.now += r.nextLong(300 * MS);
        continue;
      }
      absorb(h, pending, timers, ours, check);
    }
    h.step(new Input.Close());
    absorb(h, pending, timers, ours, check);
    assertEquals(ElectorState.STOPPED, h.m.role(), "seed " + seed);
    assertEquals(ElectorState.STOPPED, check.told, "seed " + seed);
  }

  private void absorb(SqlMachineHarness h, List<StoreCall> pending,
      Map<SqlTimer, Command.SetTimer> timers, List<HolderToken> ours, Checker check) {
    List<HolderToken> releasedInStep = new ArrayList<>();
    for (Command c : h.last) {
      if (c instanceof Command.SetTimer t) {
        timers.put((SqlTimer) t.timer(), t);
      } else if (c instanceof Command.CancelTimer t) {
        timers.remove((SqlTimer) t.timer());
      } else if (c instanceof Command.Publish p) {
        check.publish(p, h);
        seen.merge(p.cause(), 1, Integer::sum);
      } else if (c instanceof SqlCommand.Release rel) {
        releasedInStep.add(rel.holder());
      } else if (c instanceof SqlCommand.Lock l) {
        ours.add(l.holder());
      }
      if (c instanceof StoreCall call) {
        pending.add(call);
      }
    }
    int firstUnlock = -1;
    for (int i = 0; i < h.last.size(); i++) {
      if (h.last.get(i) instanceof SqlCommand.Unlock u && releasedInStep.contains(u.holder())) {
        firstUnlock = i;
        break;
      }
    }
    if (firstUnlock >= 0) {
      SqlCommand.Unlock u = (SqlCommand.Unlock) h.last.get(firstUnlock);
      int release = -1;
      for (int i = 0; i < h.last.size(); i++) {
        if (h.last.get(i) instanceof SqlCommand.Release rel && rel.holder().equals(u.holder())) {
          release = i;
          break;
        }
      }
      assertTrue(release < firstUnlock, "seed " + check.seed + ": S5 before RELEASE_LOCK in " + h.last);
    }
  }

  private static Input answer(StoreCall c, SplittableRandom r, long session, List<HolderToken> ours) {
    SqlCommand cmd = (SqlCommand) c;
    long op = op(cmd);
    if (r.nextInt(6) == 0) {
      return c.failed("random failure");
    }
    if (cmd instanceof SqlCommand.Read) {
      return new SqlInput.RowRead(op, session, row(r, ours));
    } else if (cmd instanceof SqlCommand.Lock) {
      return new SqlInput.Locked(op, session, r.nextInt(20) != 0);
    } else if (cmd instanceof SqlCommand.Await) {
      return new SqlInput.Woken(op, session, r.nextBoolean());
    } else if (cmd instanceof SqlCommand.Unlock) {
      return new SqlInput.Unlocked(op, r.nextInt(5) == 0 ? 0 : session);
    } else if (cmd instanceof SqlCommand.Take) {
      return new SqlInput.Taken(op, session, r.nextBoolean());
    } else if (cmd instanceof SqlCommand.Renew) {
      return new SqlInput.Renewed(op, session, r.nextInt(8) != 0);
    } else {
      return new SqlInput.Released(op, session, r.nextBoolean());
    }
  }

  private static LeaseRow row(SplittableRandom r, List<HolderToken> ours) {
    int k = r.nextInt(10);
    long epoch = 1 + r.nextInt(20);
    long version = 1 + r.nextInt(50);
    if (k == 0) {
      return null;
    } else if (k < 3) {
      return new LeaseRow(null, "x", epoch, version, 2_000_000, true);
    } else if (k < 5 && !ours.isEmpty()) {
      return new LeaseRow(ours.get(r.nextInt(ours.size())), "me", epoch, version, 2_000_000, r.nextBoolean());
    }
    return new LeaseRow(OTHER, "other", epoch, version, 2_000_000, r.nextBoolean());
  }

  private static long op(SqlCommand c) {
    return ((SqlCommand.Statement) c).op();
  }

  /** Checker follows the published events as a listener would. */
  private static final class Checker {
    final long seed;
    final PublishedMoves moves = new PublishedMoves(Transitions.ELECTION);
    ElectorState told = ElectorState.FOLLOWER;
    boolean unavailable;

    Checker(long seed) {
      this.seed = seed;
    }

    private static boolean isFollowerOrCandidate(ElectorState s) {
      return s == ElectorState.FOLLOWER || s == ElectorState.CANDIDATE;
    }

    void publish(Command.Publish p, SqlMachineHarness h) {
      String at = "seed " + seed + ": " + p;
      moves.check(p, "seed " + seed);
      // FOLLOWER <-> CANDIDATE moves publish nothing, so an event may start from either.
      boolean unpublishedMove = isFollowerOrCandidate(told) && isFollowerOrCandidate(p.from());
      assertTrue(told == p.from() || unpublishedMove, at + " must start where the last event ended (" + told + ")");
      if (p.cause() == Cause.ELECTED) {
        assertTrue(p.from() != ElectorState.MASTER && p.to() == ElectorState.MASTER, at);
        assertTrue(h.m.deadline() - h.now > 0, at + ": elected past its deadline");
      } else if (p.from() == ElectorState.MASTER && p.to() != ElectorState.MASTER) {
        assertTrue(p.cause().isLoss(), at);
      } else if (p.cause() == Cause.CLOSED) {
        assertEquals(ElectorState.STOPPED, p.to(), at);
      } else {
        assertEquals(p.from(), p.to(), at);
        assertTrue(p.cause() == Cause.LEADER_CHANGED || p.cause() == Cause.STORE_UNAVAILABLE
            || p.cause() == Cause.STORE_RECOVERED, at);
      }
      if (p.cause() == Cause.STORE_UNAVAILABLE) {
        assertTrue(!unavailable, at + ": twice without STORE_RECOVERED");
        unavailable = true;
      } else if (p.cause() == Cause.STORE_RECOVERED) {
        assertTrue(unavailable, at + ": recovered without an outage");
        unavailable = false;
      }
      if (p.cause() == Cause.LEADER_CHANGED) {
        assertTrue(p.leader() != null, at);
      }
      told = p.to();
    }
  }
}
