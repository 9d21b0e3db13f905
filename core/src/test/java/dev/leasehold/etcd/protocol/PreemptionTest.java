package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Priority and preemption (PROTOCOL.md §4.5) on the pure machine, with no store: the MASTER's
 * successor is the highest priority, and with {@code preemptAfter} it hands over to a
 * higher-priority candidate that waited that long without a break.
 */
class PreemptionTest {
  private static final long OWN = MasterFixture.OWN;
  private static final long AFTER = 2 * S;
  private static final ProtocolConfig PREEMPTING =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, 5, AFTER);

  private final MasterFixture f = new MasterFixture(PREEMPTING);
  private final ElectionMachine m = f.m;
  private final MachineSteps s = f.s;

  private void enlisted(Participant p) {
    f.step(new EtcdInput.WatchEnlisted(f.watchId, p, p.modRevision()));
  }

  @Test
  void theSuccessorIsTheHighestPriorityThenTheLongestQueued() {
    Queue q = new Queue();
    Participant early = new Participant("early", 90, 12, 12, 0);
    Participant high = new Participant("high", 91, 13, 13, 3);
    Participant higherLater = new Participant("higherLater", 92, 15, 15, 3);
    q.reset(List.of(early, higherLater, high), 15);
    assertEquals(high, q.successor(OWN));
    assertTrue(q.outranks(OWN, 2));
    assertFalse(q.outranks(OWN, 3), "an equal priority never preempts");
  }

  @Test
  void aMasterHandsOverToAHigherPriorityCandidateAfterTheDelay() {
    f.master();
    Participant lower = new Participant("lower", 90, 12, 12, 1);
    enlisted(lower);
    assertFalse(s.last.stream().anyMatch(c -> c instanceof Command.SetTimer t && t.timer() == TimerKind.PREEMPT),
        "a lower priority arms nothing");
    s.now += 1 * S;
    Participant higher = new Participant("higher", 91, 13, 13, 9);
    enlisted(higher);
    Command.SetTimer preempt = s.timer(TimerKind.PREEMPT);
    assertEquals(s.now + AFTER, preempt.atNanos());
    s.fire(preempt);
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before the handover goes out");
    assertEquals(List.of(Cause.PREEMPTED), s.published());
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    assertEquals(11, h.token(), "the fenced handover of resign(): guarded by the term's token");
    assertEquals(higher, h.successor());
    assertFalse(s.has(Command.Release.class), "the lease stays, as a standby");
  }

  @Test
  void aHigherCandidateThatLeavesBeforeTheDelayPreemptsNothing() {
    f.master();
    Participant higher = new Participant("higher", 91, 13, 13, 9);
    enlisted(higher);
    Command.SetTimer preempt = s.timer(TimerKind.PREEMPT);
    s.now += 1 * S;
    f.step(new EtcdInput.WatchWithdrawn(f.watchId, higher.leaseId(), 14));
    assertTrue(s.has(Command.CancelTimer.class), "the wait is broken: the timer goes");
    // Back at once (a restart): the wait starts again from now, not from the first arming.
    Participant again = new Participant("higher", 92, 15, 15, 9);
    enlisted(again);
    Command.SetTimer restarted = s.timer(TimerKind.PREEMPT);
    assertEquals(s.now + AFTER, restarted.atNanos());
    assertTrue(restarted.seq() != preempt.seq());
    s.fire(preempt);
    assertEquals(ElectorState.MASTER, m.role(), "the old arming fires nothing");
    s.fire(restarted);
    assertEquals(again, s.only(EtcdCommand.Handover.class).successor());
  }

  @Test
  void withoutPreemptAfterAHigherCandidateWaitsForTheNextHandover() {
    ProtocolConfig still =
        new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, 0, -1);
    ElectionMachine quiet = new ElectionMachine(still, new SplittableRandom(1));
    MachineSteps q = new MachineSteps(quiet);
    q.step(new Input.Start());
    q.step(new EtcdInput.PollResult(q.only(EtcdCommand.Poll.class).op(), null, 4));
    q.step(new EtcdInput.Ranked(q.only(EtcdCommand.Rank.class).op(), 0, 4));
    q.step(new EtcdInput.LeaseGranted(q.only(EtcdCommand.GrantLease.class).op(), OWN, 3));
    q.step(new EtcdInput.CampaignWon(q.only(EtcdCommand.Campaign.class).op(), 11));
    long id = q.only(EtcdCommand.Watch.class).watchId();
    Participant higher = new Participant("higher", 91, 13, 13, 9);
    q.step(new EtcdInput.WatchEnlisted(id, higher, 13));
    assertTrue(q.last.stream().noneMatch(c -> c instanceof Command.SetTimer t && t.timer() == TimerKind.PREEMPT));
    q.step(new Input.Resign(Cause.RESIGNED));
    assertEquals(higher, q.only(EtcdCommand.Handover.class).successor(), "a resign still picks the highest");
  }

  @Test
  void aPreemptionTimerDoesNotOutliveTheTerm() {
    f.master();
    enlisted(new Participant("higher", 91, 13, 13, 9));
    Command.SetTimer preempt = s.timer(TimerKind.PREEMPT);
    f.step(new Input.Resign(Cause.RESIGNED));
    assertEquals(List.of(Cause.RESIGNED), s.published());
    s.fire(preempt);
    assertFalse(s.has(EtcdCommand.Handover.class), "a stale preemption hands nothing over: " + s.last);
    assertNull(s.published().stream().filter(c -> c == Cause.PREEMPTED).findAny().orElse(null));
  }
}
