package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.PublishedMoves;
import dev.leasehold.runtime.Term;
import dev.leasehold.runtime.Transitions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The etcd machine's choke point (its Roles: the one place the role changes and events are published), and the PROBING phase. */
class TransitionChokePointTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final long LEASE = 77;
  private static final KeyRecord OTHER = new KeyRecord("other", 5, 30, 30);

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private final List<Command.Publish> events = new ArrayList<>();
  private long now = 1_000 * S;
  private List<Command> last = List.of();
  private long watchId;

  private void step(Input in) {
    last = m.step(in, now);
    for (Command c : last) {
      if (c instanceof Command.Publish p) {
        events.add(p);
      } else if (c instanceof EtcdCommand.Watch w) {
        watchId = w.watchId();
      }
    }
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private Command.SetTimer timer(TimerKind kind) {
    return last.stream()
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  private long leavingMaster() {
    return events.stream().filter(e -> e.from() == ElectorState.MASTER && e.to() != ElectorState.MASTER).count();
  }

  private List<Cause> causes() {
    return events.stream().map(Command.Publish::cause).collect(Collectors.toList());
  }

  private void elect() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 11));
    assertEquals(ElectorState.MASTER, m.role());
  }

  private long probeOp() {
    return last.stream()
        .filter(EtcdCommand.ProbeLease.class::isInstance)
        .map(c -> ((EtcdCommand.ProbeLease) c).op())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ProbeLease in " + last));
  }

  @Test
  void aMasterThatLosesWhileProbingPublishesExactlyOneLoss() {
    elect();
    Command.SetTimer renew = timer(TimerKind.RENEW);
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    now += 10 * MS;
    step(new EtcdInput.WatchDelete(watchId, 20));
    long probe = probeOp();
    Command.SetTimer probeTimer = timer(TimerKind.PROBE);
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before knowing why");
    assertTrue(m.probing());
    // Leaving MASTER stopped the lease's renewal at once; late firings change nothing.
    assertTrue(last.contains(new Command.CancelTimer(TimerKind.RENEW)), () -> "RENEW cancelled: " + last);
    assertTrue(last.contains(new Command.CancelTimer(TimerKind.DEADLINE)), () -> "DEADLINE cancelled: " + last);
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    assertTrue(last.isEmpty(), () -> "stale RENEW: " + last);
    now = deadline.atNanos();
    step(new Input.TimerFired(TimerKind.DEADLINE, deadline.seq()));
    assertTrue(last.isEmpty(), () -> "stale DEADLINE: " + last);
    // While PROBING, everything that would end a term, or report from FOLLOWER, comes in.
    step(new EtcdInput.WatchPut(watchId, OTHER, 30));
    step(new Input.Resign());
    step(new EtcdInput.WatchFailed(watchId, false, "stream reset"));
    Command.SetTimer rewatch = timer(TimerKind.REWATCH);
    now = rewatch.atNanos();
    step(new Input.TimerFired(TimerKind.REWATCH, rewatch.seq()));
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
    assertEquals(List.of(Cause.ELECTED), causes(), "nothing is told while PROBING");
    assertEquals(ElectorState.FOLLOWER, m.role());

    step(new EtcdInput.LeaseProbed(probe, true, true));
    assertEquals(List.of(Cause.ELECTED, Cause.KEY_DELETED), causes());
    Command.Publish loss = events.get(1);
    assertEquals(ElectorState.MASTER, loss.from());
    assertEquals(ElectorState.FOLLOWER, loss.to());
    assertEquals(OTHER.holderId(), loss.leader().candidateId(), "the leader seen while probing");
    assertEquals(LEASE, only(Command.Release.class).leaseId());
    assertFalse(m.probing());
    long pollOp = only(EtcdCommand.Poll.class).op();

    // The probe's timer, a second answer, and the next events find the loss already told.
    step(new Input.TimerFired(TimerKind.PROBE, probeTimer.seq()));
    step(new EtcdInput.LeaseProbed(probe, true, false));
    step(new EtcdInput.PollFailed(pollOp, "refused"));
    assertEquals(List.of(Cause.ELECTED, Cause.KEY_DELETED), causes(), "two failures are not an outage yet");
    Command.SetTimer poll = timer(TimerKind.POLL);
    now = poll.atNanos();
    step(new Input.TimerFired(TimerKind.POLL, poll.seq()));
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
    assertEquals(List.of(Cause.ELECTED, Cause.KEY_DELETED, Cause.STORE_UNAVAILABLE), causes());
    assertEquals(1, leavingMaster());
    assertEquals(ElectorState.FOLLOWER, events.get(2).from(), "the outage is reported after the loss, from FOLLOWER");
  }

  @Test
  void aProbeThatTimesOutReportsKeyDeletedOnceAndALateAnswerIsIgnored() {
    elect();
    step(new EtcdInput.WatchDelete(watchId, 20));
    long probe = probeOp();
    Command.SetTimer probeTimer = timer(TimerKind.PROBE);
    now = probeTimer.atNanos();
    step(new Input.TimerFired(TimerKind.PROBE, probeTimer.seq()));
    assertEquals(List.of(Cause.ELECTED, Cause.KEY_DELETED), causes());
    step(new EtcdInput.LeaseProbed(probe, true, false));
    assertTrue(last.isEmpty(), () -> "late probe answer: " + last);
    assertEquals(1, leavingMaster());
  }

  @Test
  void closeWhileProbingLeavesMasterExactlyOnce() {
    elect();
    step(new EtcdInput.WatchDelete(watchId, 20));
    long probe = probeOp();
    step(new Input.Close());
    assertEquals(ElectorState.STOPPED, m.role());
    assertEquals(List.of(Cause.ELECTED, Cause.CLOSED), causes());
    Command.Publish closed = events.get(1);
    assertEquals(ElectorState.MASTER, closed.from(), "the listeners still saw a MASTER");
    assertEquals(ElectorState.STOPPED, closed.to());
    assertEquals(LEASE, only(Command.Release.class).leaseId(), "the probed lease is revoked");
    step(new EtcdInput.LeaseProbed(probe, true, false));
    assertTrue(last.isEmpty());
    assertEquals(1, leavingMaster());
  }

  @Test
  void internalMovesPublishNothingAndTheNextEventStartsWhereTheyLed() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    assertEquals(ElectorState.CANDIDATE, m.role());
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    // A refusal is an outage at once (a timeout would have to last).
    step(new EtcdInput.CampaignFailed(
        only(EtcdCommand.Campaign.class).op(), "configuration error: permission denied"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    Command.SetTimer poll = timer(TimerKind.POLL);
    now = poll.atNanos();
    step(new Input.TimerFired(TimerKind.POLL, poll.seq()));
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 11));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE + 1, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 12));
    // The outage began while CANDIDATE and ended with the answered campaign of the next
    // CANDIDATE (a read showing the key absent is not yet what the elector needs); the term
    // began from CANDIDATE.
    List<String> seen =
        events.stream().map(e -> e.from() + "->" + e.to() + " " + e.cause()).collect(Collectors.toList());
    assertEquals(
        List.of(
            "CANDIDATE->CANDIDATE STORE_UNAVAILABLE",
            "CANDIDATE->CANDIDATE STORE_RECOVERED",
            "CANDIDATE->MASTER ELECTED"),
        seen);
  }

  @Test
  void theChokePointRejectsMovesThatWouldBreakPairing() {
    long at = now;
    LeaderInfo me = new LeaderInfo("me", 11, LEASE);
    Term term = new Term(11, LEASE, at + S);
    assertThrows(IllegalStateException.class, () -> m.roles.elect(term, me, at),
        "FOLLOWER -> MASTER is not in Transitions");
    assertThrows(IllegalStateException.class, () -> m.roles.moveTo(ElectorState.STOPPED, null, null, at),
        "closing must be told");
    assertThrows(IllegalStateException.class, () -> m.roles.moveTo(ElectorState.CANDIDATE, Cause.LEADER_CHANGED, me, at),
        "a same-role cause cannot move the role");
    elect();
    assertThrows(IllegalStateException.class, () -> m.roles.elect(term, me, at),
        "ELECTED twice without a loss between");
    assertThrows(IllegalStateException.class, () -> m.roles.moveTo(ElectorState.FOLLOWER, null, null, at),
        "a MASTER leaves silently only when PROBING");
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void randomRunsKeepEveryEventPaired() {
    for (long seed = 1; seed <= 300; seed++) {
      ProtocolConfig config =
          new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 50 * MS, 1 * S, 200 * MS, S, seed % 2 == 0);
      ElectionMachine machine = new ElectionMachine(config, new SplittableRandom(seed));
      PublishedMoves moves = new PublishedMoves(Transitions.ELECTION);
      RandomDriver driver = new RandomDriver(seed);
      Input in = driver.first();
      boolean inTerm = false;
      ElectorState toldTo = ElectorState.FOLLOWER;
      for (int i = 0; i < 2_000 && !driver.done(); i++) {
        List<Command> out = machine.step(in, driver.now());
        for (Command c : out) {
          if (!(c instanceof Command.Publish e)) {
            continue;
          }
          String where = "seed " + seed + " step " + i + " on " + in + ": " + e;
          moves.check(e, "seed " + seed + " step " + i + " on " + in);
          boolean internalGap = toldTo != ElectorState.MASTER && toldTo != ElectorState.STOPPED
              && (e.from() == ElectorState.FOLLOWER || e.from() == ElectorState.CANDIDATE);
          assertTrue(e.from() == toldTo || internalGap, () -> "from is not what was told: " + where);
          if (e.cause() == Cause.ELECTED) {
            assertFalse(inTerm, () -> "ELECTED inside a term: " + where);
            assertEquals(ElectorState.CANDIDATE, e.from(), where);
            assertEquals(ElectorState.MASTER, machine.role(), where);
            inTerm = true;
          } else if (e.from() == ElectorState.MASTER && e.to() != ElectorState.MASTER) {
            assertTrue(inTerm, () -> "left MASTER outside a term: " + where);
            assertTrue(machine.role() != ElectorState.MASTER, () -> "still MASTER: " + where);
            inTerm = false;
          } else if (e.cause() != Cause.CLOSED) {
            assertEquals(e.from(), e.to(), () -> "a same-role event moved: " + where);
          }
          toldTo = e.to();
        }
        driver.sent(out);
        in = driver.next();
      }
      if (machine.role() == ElectorState.STOPPED) {
        assertFalse(inTerm, "a closed machine's term ended");
      }
    }
  }
}
