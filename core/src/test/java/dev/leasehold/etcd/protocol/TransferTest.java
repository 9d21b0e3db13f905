package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Transfer to a named candidate (PROTOCOL.md §4.5) on the pure machine, with no store: the
 * MASTER hands its key to that candidate's standby lease by the fenced handover, or keeps its
 * term and says why; every transfer is answered exactly once.
 */
class TransferTest {
  private static final long OWN = MasterFixture.OWN;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, 0, -1);

  // Queued since the term began, and joined a moment ago (the view may not show it yet).
  private static final Participant OTHER = new Participant("other", 90, 12, 12, 0);
  private static final Participant LATE = new Participant("late", 92, 35, 35, 0);

  private final MasterFixture f = new MasterFixture(CONFIG);
  private final ElectionMachine m = f.m;
  private final MachineSteps s = f.s;

  private Command.TransferOutcome outcome() {
    return s.only(Command.TransferOutcome.class);
  }

  // The read of the queue a transfer to a name the view does not show sends; answered at revision 40.
  private void answerLookup(Participant... queued) {
    EtcdCommand.Poll read = s.only(EtcdCommand.Poll.class);
    assertTrue(read.participants(), "a read of the queue: " + read);
    assertFalse(s.has(Command.TransferOutcome.class), "not answered before the read");
    f.step(new EtcdInput.PollResult(read.op(), new KeyRecord("me", OWN, 11, 11), 40, List.of(queued)));
  }

  @Test
  void aTransferHandsTheKeyToTheNamedCandidateNotTheHead() {
    Participant head = new Participant("head", 90, 12, 12, 5);
    Participant named = new Participant("named", 91, 13, 13, 0);
    f.master(head, named);
    f.step(new Input.Transfer(1, "named"));
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before the handover goes out");
    assertEquals(List.of(Cause.TRANSFERRED), s.published());
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    assertEquals(11, h.token(), "fenced on the term's token");
    assertEquals(named, h.successor());
    assertFalse(s.has(Command.TransferOutcome.class), "answered when etcd answers, not before");
    f.step(new EtcdInput.HandedOver(h.op(), 20));
    assertEquals(new Command.TransferOutcome(1, new LeaderInfo("named", 20, 91), null), outcome());
  }

  @Test
  void aTransferToACandidateNotQueuedKeepsTheTerm() {
    f.master(new Participant("other", 90, 12, 12, 0));
    f.step(new Input.Transfer(7, "ghost"));
    answerLookup(new Participant("other", 90, 12, 12, 0));
    assertEquals(ElectorState.MASTER, m.role());
    assertFalse(s.has(EtcdCommand.Handover.class));
    Command.TransferOutcome o = outcome();
    assertEquals(7, o.id());
    assertNull(o.target());
    assertTrue(o.refusal().contains("ghost is not a live participant") && o.refusal().contains("[other]")
        && o.refusal().contains("the term is kept"), o.refusal());
  }

  @Test
  void aTransferToACandidateTheViewDoesNotShowYetReadsTheQueueFirst() {
    f.master(OTHER);
    f.step(new Input.Transfer(8, "late"));
    assertEquals(ElectorState.MASTER, m.role(), "the term is kept while the queue is read");
    answerLookup(OTHER, LATE);
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LATE, s.only(EtcdCommand.Handover.class).successor());
  }

  @Test
  void aDeletionTheWatchShowedAfterTheReadIsNotUndoneByIt() {
    f.master(OTHER);
    f.step(new Input.Transfer(9, "late"));
    EtcdCommand.Poll read = s.only(EtcdCommand.Poll.class);
    // late joined at 35 and its lease ended at 41; the read, served at 40, still lists it.
    f.step(new EtcdInput.WatchEnlisted(f.watchId, LATE, 35));
    f.step(new EtcdInput.WatchWithdrawn(f.watchId, 92, 41));
    f.step(new EtcdInput.PollResult(read.op(), new KeyRecord("me", OWN, 11, 11), 40, List.of(OTHER, LATE)));
    assertEquals(ElectorState.MASTER, m.role());
    assertFalse(s.has(EtcdCommand.Handover.class));
    assertTrue(outcome().refusal().contains("late is not a live participant of the queue (it shows [other])"),
        outcome().refusal());
  }

  @Test
  void aTransferWaitingForItsReadIsAnsweredWhenTheTermEnds() {
    f.master(new Participant("other", 90, 12, 12, 0));
    f.step(new Input.Transfer(10, "late"));
    long read = s.only(EtcdCommand.Poll.class).op();
    f.step(new Input.Resign(Cause.RESIGNED));
    Command.TransferOutcome o = outcome();
    assertEquals(10, o.id());
    assertTrue(o.refusal().contains("the term ended before the queue was read again"), o.refusal());
    f.step(new EtcdInput.PollResult(read, null, 40, List.of(new Participant("late", 92, 35, 35, 0))));
    assertFalse(s.has(Command.TransferOutcome.class), "answered once");
    assertFalse(s.has(EtcdCommand.Handover.class));
  }

  @Test
  void aFailedReadRefusesOnTheViewAndSaysSo() {
    f.master(new Participant("other", 90, 12, 12, 0));
    f.step(new Input.Transfer(11, "late"));
    f.step(new EtcdInput.PollFailed(s.only(EtcdCommand.Poll.class).op(), "deadline exceeded"));
    assertEquals(ElectorState.MASTER, m.role());
    assertTrue(outcome().refusal().contains("(it shows [other]) (reading the queue again failed: deadline exceeded)"),
        outcome().refusal());
  }

  @Test
  void aTransferToItselfOrFromAFollowerKeepsEverything() {
    f.master();
    f.step(new Input.Transfer(2, "me"));
    assertTrue(outcome().refusal().startsWith("me is this instance"), outcome().refusal());
    assertEquals(ElectorState.MASTER, m.role());
    f.step(new Input.Resign(Cause.RESIGNED));
    f.step(new Input.Transfer(3, "anyone"));
    assertTrue(outcome().refusal().contains("does not lead"), outcome().refusal());
  }

  @Test
  void aTransferRefusedByEtcdEndsTheTermAndReleasesTheLease() {
    Participant named = new Participant("named", 91, 13, 13, 0);
    f.master(named);
    f.step(new Input.Transfer(4, "named"));
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    f.step(new EtcdInput.HandoverRefused(h.op(), new KeyRecord("me", OWN, 11, 11), 21));
    Command.TransferOutcome o = outcome();
    assertNull(o.target());
    assertTrue(o.refusal().contains("etcd refused the handover to named"), o.refusal());
    assertTrue(s.has(Command.Release.class), "the lease goes, as after a resign without successor");
  }

  @Test
  void aTransferOfUnknownOutcomeIsAnsweredToo() {
    f.master(new Participant("named", 91, 13, 13, 0));
    f.step(new Input.Transfer(5, "named"));
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    f.step(new EtcdInput.HandoverFailed(h.op(), "deadline exceeded"));
    assertTrue(outcome().refusal().contains("unknown outcome (deadline exceeded)"), outcome().refusal());
  }

  @Test
  void anOperatorsRequestIsCarriedOutOnceAndAnsweredUnderItsRevision() {
    Participant named = new Participant("named", 91, 13, 13, 0);
    f.master(named);
    f.step(new EtcdInput.TransferRequested(f.watchId, "named", 30));
    assertEquals(List.of(Cause.TRANSFERRED), s.published());
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    assertEquals(named, h.successor());
    f.step(new EtcdInput.HandedOver(h.op(), 31));
    assertEquals(new Command.TransferOutcome(-30, new LeaderInfo("named", 31, 91), null), outcome());
  }

  @Test
  void anOperatorsRequestNamingNobodyQueuedKeepsTheTermAndSaysWhy() {
    f.master(new Participant("other", 90, 12, 12, 0));
    f.step(new EtcdInput.TransferRequested(f.watchId, "ghost", 30));
    answerLookup(new Participant("other", 90, 12, 12, 0));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(-30, outcome().id());
    f.step(new EtcdInput.TransferRequested(f.watchId, "ghost", 30));
    assertFalse(s.has(Command.TransferOutcome.class), "a put seen twice is carried out once");
    f.step(new EtcdInput.TransferRequested(f.watchId, "me", 32));
    assertFalse(s.has(Command.TransferOutcome.class), "a request naming the leader is the one that made it");
  }

  @Test
  void aResignsHandoverAnswersNoTransfer() {
    f.master(new Participant("next", 91, 13, 13, 0));
    f.step(new Input.Resign(Cause.RESIGNED));
    f.step(new EtcdInput.HandoverRefused(s.only(EtcdCommand.Handover.class).op(), null, 21));
    assertFalse(s.has(Command.TransferOutcome.class));
  }
}
