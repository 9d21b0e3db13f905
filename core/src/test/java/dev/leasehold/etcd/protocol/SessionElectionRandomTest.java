package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.PublishedMoves;
import dev.leasehold.runtime.Transitions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A session's election under random news (the session's lease live, renewed, ended; the watch's
 * view of the key; campaign and delete replies, late or failed; store reports; resigns and
 * timers): every event it publishes is a move of its own table ({@link
 * Transitions#SESSION_ELECTION}) from where its listeners stand, and while MASTER its leader is
 * the term it handed over.
 */
class SessionElectionRandomTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final int SEEDS = 300;
  private static final int STEPS = 400;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);

  private final Map<Cause, Integer> seen = new EnumMap<>(Cause.class);

  @Test
  void everyPublishedMoveIsInTheSessionElectionsTableWhateverTheSessionSays() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      run(seed);
    }
    // Not vacuous: the runs went through every way in and out of MASTER.
    for (Cause c : List.of(Cause.ELECTED, Cause.RESIGNED, Cause.KEY_TAKEN, Cause.KEY_DELETED,
        Cause.LEASE_EXPIRED_LOCALLY, Cause.LEASE_REVOKED, Cause.STORE_UNAVAILABLE, Cause.STORE_RECOVERED,
        Cause.LEADER_CHANGED, Cause.CLOSED)) {
      assertTrue(seen.getOrDefault(c, 0) > 10, c + " seen " + seen.getOrDefault(c, 0) + " times: " + seen);
    }
  }

  private void run(long seed) {
    SplittableRandom r = new SplittableRandom(seed * 31);
    SessionElection m = new SessionElection(CONFIG, new SplittableRandom(seed));
    PublishedMoves moves = new PublishedMoves(Transitions.SESSION_ELECTION);
    List<Command> pending = new ArrayList<>();
    Map<Object, Command.SetTimer> timers = new java.util.HashMap<>();
    long[] clock = {1_000 * S};
    long lease = 100;
    long revision = 10;
    Step step = in -> {
      List<Command> out = m.step(in, clock[0]);
      for (Command c : out) {
        if (c instanceof Command.Publish p) {
          moves.check(p, "seed " + seed + " on " + in);
          seen.merge(p.cause(), 1, Integer::sum);
        } else if (c instanceof SessionCommand.Campaign || c instanceof SessionCommand.FencedDelete) {
          pending.add(c);
        } else if (c instanceof Command.SetTimer t) {
          timers.put(t.timer(), t);
        } else if (c instanceof Command.CancelTimer t) {
          timers.remove(t.timer());
        }
      }
      if (m.role() == ElectorState.MASTER) {
        assertEquals("me", m.leader().candidateId(), "seed " + seed + ": a MASTER's leader is itself");
      }
    };
    step.on(new Input.Start());
    step.on(new SessionInput.Live(lease, clock[0] + 2 * S, clock[0]));
    for (int i = 0; i < STEPS; i++) {
      clock[0] += r.nextLong(100 * MS);
      int pick = r.nextInt(100);
      if (pick < 30 && !pending.isEmpty()) {
        Command c = pending.remove(r.nextInt(pending.size()));
        step.on(answer(c, r, revision += 1 + r.nextInt(3)));
      } else if (pick < 45) {
        step.on(new SessionInput.Live(lease, clock[0] + r.nextLong(3 * S), clock[0]));
      } else if (pick < 50) {
        step.on(new SessionInput.Ended(lease, r.nextBoolean() ? Cause.LEASE_EXPIRED_LOCALLY : Cause.LEASE_REVOKED));
        lease++;
        step.on(new SessionInput.Live(lease, clock[0] + 2 * S, clock[0]));
      } else if (pick < 70) {
        revision += 1 + r.nextInt(3);
        step.on(new SessionInput.KeySeen(key(r, lease, revision), revision));
      } else if (pick < 75) {
        step.on(r.nextBoolean() ? new SessionInput.Unavailable("etcd unreachable") : new SessionInput.Recovered());
      } else if (pick < 82) {
        step.on(new Input.Resign(r.nextBoolean() ? Cause.RESIGNED : Cause.WORK_STALLED));
      } else if (!timers.isEmpty()) {
        List<Command.SetTimer> armed = new ArrayList<>(timers.values());
        Command.SetTimer t = armed.get(r.nextInt(armed.size()));
        timers.remove(t.timer());
        clock[0] = Math.max(clock[0], t.atNanos());
        step.on(new Input.TimerFired(t.timer(), t.seq()));
      }
    }
    step.on(r.nextInt(4) == 0 ? new SessionInput.Ended(lease, Cause.CLOSED) : new Input.Close());
    while (!pending.isEmpty()) {
      step.on(answer(pending.remove(0), r, revision += 1));
    }
    assertEquals(ElectorState.STOPPED, m.role(), "seed " + seed);
    assertEquals(ElectorState.STOPPED, moves.told(), "seed " + seed);
  }

  private static KeyRecord key(SplittableRandom r, long lease, long revision) {
    return switch (r.nextInt(4)) {
      case 0 -> null;
      case 1 -> new KeyRecord("me", lease, revision, revision);
      default -> new KeyRecord("other-" + r.nextInt(3), 900 + r.nextInt(3), revision, revision);
    };
  }

  private static Input answer(Command c, SplittableRandom r, long revision) {
    if (c instanceof SessionCommand.Campaign k) {
      return switch (r.nextInt(4)) {
        case 0 -> k.failed("timed out");
        case 1 -> new EtcdInput.CampaignLost(k.op(), new KeyRecord("other", 901, revision, revision), revision);
        default -> new EtcdInput.CampaignWon(k.op(), revision);
      };
    }
    SessionCommand.FencedDelete d = (SessionCommand.FencedDelete) c;
    return r.nextInt(4) == 0 ? d.failed("timed out") : new SessionInput.Deleted(d.op(), r.nextBoolean(), revision);
  }

  @FunctionalInterface
  private interface Step {
    void on(Input in);
  }
}
