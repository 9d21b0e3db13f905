package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The session election's rules (PROTOCOL.md §11), step by step, with no store. */
class SessionElectionTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final long LEASE = 77;
  private static final long OTHER_LEASE = 99;

  private final SessionElection m = new SessionElection(CONFIG, new SplittableRandom(1));
  private final MachineSteps d = new MachineSteps(m);





  private SessionCommand.Campaign campaigning() {
    d.step(new Input.Start());
    d.only(SessionCommand.Join.class);
    d.step(new SessionInput.Live(LEASE, d.now + 2 * S, d.now));
    assertFalse(d.has(SessionCommand.Campaign.class), "reads first: " + d.last);
    d.step(new SessionInput.KeySeen(null, 5));
    return d.only(SessionCommand.Campaign.class);
  }

  private long elect(long revision) {
    SessionCommand.Campaign c = campaigning();
    assertEquals(LEASE, c.leaseId());
    d.step(new EtcdInput.CampaignWon(c.op(), revision));
    assertEquals(List.of(Cause.ELECTED), d.published());
    return revision;
  }

  @Test
  void campaignsOnlyOnceStartedAndTheSessionIsLive() {
    d.step(new SessionInput.Live(LEASE, d.now + 2 * S, d.now));
    assertFalse(d.has(SessionCommand.Campaign.class), "not started");
    d.step(new Input.Start());
    d.only(SessionCommand.Join.class);
    assertFalse(d.has(SessionCommand.Campaign.class), "the join brings the lease");
    d.step(new SessionInput.Live(LEASE, d.now + 2 * S, d.now));
    assertFalse(d.has(SessionCommand.Campaign.class), "the key is not read yet");
    d.step(new SessionInput.KeySeen(null, 5));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aKeyAlreadyHeldCostsANewElectionNoCampaign() {
    d.step(new Input.Start());
    d.step(new SessionInput.Live(LEASE, d.now + 2 * S, d.now));
    d.step(new SessionInput.KeySeen(new KeyRecord("other", OTHER_LEASE, 3, 3), 5));
    assertEquals(List.of(Cause.LEADER_CHANGED), d.published());
    assertFalse(d.has(SessionCommand.Campaign.class), d.last.toString());
  }

  @Test
  void withNoReadWithinAPollIntervalItCampaignsAnyway() {
    d.step(new Input.Start());
    d.step(new SessionInput.Live(LEASE, d.now + 5 * S, d.now));
    Command.SetTimer guess = d.timer(SessionElection.Timer.CAMPAIGN);
    assertEquals(d.now + CONFIG.pollIntervalNanos(), guess.atNanos());
    d.fire(guess);
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aWinMakesAMasterWhoseTokenIsThePutsRevisionAndWhoseDeadlineIsTheSessions() {
    elect(40);
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(40, MasterTerm.token(m));
    assertEquals(LEASE, MasterTerm.leaseId(m));
    assertEquals(d.now + 2 * S, m.deadline());
    d.step(new SessionInput.Live(LEASE, d.now + 5 * S, d.now + S));
    assertEquals(d.now + 5 * S, m.deadline(), "a renewal of the session extends the term");
    assertTrue(d.last.isEmpty(), "and costs the election nothing: " + d.last);
  }

  @Test
  void aLateWinIsNeverLedOnButDeletedByItsRevision() {
    SessionCommand.Campaign c = campaigning();
    d.step(new EtcdInput.CampaignFailed(c.op(), "timed out after 750 ms"));
    d.step(new EtcdInput.CampaignWon(c.op(), 41));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(41, d.only(SessionCommand.FencedDelete.class).token());
    assertTrue(d.published().isEmpty());
  }

  @Test
  void aWinAfterTheSessionsDeadlineIsDeletedNotLed() {
    SessionCommand.Campaign c = campaigning();
    d.now += 3 * S;
    d.step(new EtcdInput.CampaignWon(c.op(), 42));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(42, d.only(SessionCommand.FencedDelete.class).token());
  }

  @Test
  void aKeyOnTheSessionsOwnLeaseIsNeverAdoptedButDeleted() {
    SessionCommand.Campaign c = campaigning();
    d.step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("me", LEASE, 30, 30), 35));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(30, d.only(SessionCommand.FencedDelete.class).token());
    d.step(new SessionInput.Deleted(d.only(SessionCommand.FencedDelete.class).op(), true, 36));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void theWatchShowingThisSessionsPutWhileTheCampaignIsInFlightIsLeftToTheReply() {
    SessionCommand.Campaign c = campaigning();
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 43, 43), 43));
    assertFalse(d.has(SessionCommand.FencedDelete.class), d.last.toString());
    d.step(new EtcdInput.CampaignWon(c.op(), 43));
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void aKeyOfItsOwnSeenWhileTheCampaignWasInFlightIsDeletedOnceTheCampaignTimesOut() {
    // The stall found at 1,000 elections started at once: the watch showed the put, the reply
    // never came, and the election waited for a leader that did not exist.
    SessionCommand.Campaign c = campaigning();
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 44, 44), 44));
    d.step(new EtcdInput.CampaignFailed(c.op(), "timed out after 750 ms"));
    Command.SetTimer retry = d.timer(SessionElection.Timer.CAMPAIGN);
    d.fire(retry);
    assertEquals(44, d.only(SessionCommand.FencedDelete.class).token());
    d.step(new SessionInput.Deleted(d.only(SessionCommand.FencedDelete.class).op(), true, 45));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aDeleteThatFindsTheKeyChangedLeavesTheNextCampaignToReadIt() {
    SessionCommand.Campaign c = campaigning();
    d.step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("me", LEASE, 30, 30), 35));
    d.step(new SessionInput.Deleted(d.only(SessionCommand.FencedDelete.class).op(), false, 36));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void anotherHolderIsTheLeaderAndItsDeleteStartsACampaign() {
    SessionCommand.Campaign c = campaigning();
    d.step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("other", OTHER_LEASE, 20, 20), 25));
    assertEquals(List.of(Cause.LEADER_CHANGED), d.published());
    assertEquals("other", m.leader().candidateId());
    d.step(new SessionInput.KeySeen(null, 26));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aStaleViewOfTheKeyIsIgnored() {
    elect(50);
    d.step(new SessionInput.KeySeen(null, 49));
    assertEquals(ElectorState.MASTER, m.role());
    d.step(new SessionInput.KeySeen(new KeyRecord("other", OTHER_LEASE, 51, 51), 51));
    assertEquals(List.of(Cause.KEY_TAKEN), d.published());
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals("other", m.leader().candidateId(), "the loss names the new holder");
  }

  @Test
  void theKeyDeletedUnderAMasterEndsTheTerm() {
    elect(50);
    d.step(new SessionInput.KeySeen(null, 52));
    assertEquals(Cause.KEY_DELETED, d.published().get(0));
    assertEquals(0, MasterTerm.token(m));
  }

  @Test
  void resignStepsDownFirstThenDeletesFencedAndSitsOutTheHoldoff() {
    long token = elect(60);
    d.step(new Input.Resign());
    Command.SetTimer holdoff = d.timer(SessionElection.Timer.HOLDOFF);
    assertEquals(Cause.RESIGNED, ((Command.Publish) d.last.get(0)).cause(), "the role changes first: " + d.last);
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(token, d.only(SessionCommand.FencedDelete.class).token());
    d.step(new SessionInput.Deleted(d.only(SessionCommand.FencedDelete.class).op(), true, 61));
    assertFalse(d.has(SessionCommand.Campaign.class), "held off");
    d.now += 3 * S;
    d.step(new Input.TimerFired(holdoff.timer(), holdoff.seq()));
    assertFalse(d.has(SessionCommand.Campaign.class), "the session's deadline passed meanwhile");
    d.step(new SessionInput.Live(LEASE, d.now + 2 * S, d.now));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aResignsDeleteIsRetriedUntilAnsweredAndDroppedWithTheLease() {
    elect(70);
    d.step(new Input.Resign());
    SessionCommand.FencedDelete first = d.only(SessionCommand.FencedDelete.class);
    d.step(new SessionInput.DeleteFailed(first.op(), "timed out"));
    Command.SetTimer retry = d.timer(SessionElection.Timer.DELETE);
    d.step(new Input.TimerFired(retry.timer(), retry.seq()));
    assertEquals(70, d.only(SessionCommand.FencedDelete.class).token());
    d.step(new SessionInput.DeleteFailed(d.only(SessionCommand.FencedDelete.class).op(), "timed out"));
    retry = d.timer(SessionElection.Timer.DELETE);
    d.step(new SessionInput.Ended(LEASE, Cause.LEASE_EXPIRED_LOCALLY));
    d.step(new Input.TimerFired(retry.timer(), retry.seq()));
    assertFalse(d.has(SessionCommand.FencedDelete.class), "the key went with the lease: " + d.last);
  }

  @Test
  void theSessionsLossEndsTheTermWithItsCauseAndNoDelete() {
    elect(80);
    d.step(new SessionInput.Ended(LEASE, Cause.LEASE_EXPIRED_LOCALLY));
    assertEquals(List.of(Cause.LEASE_EXPIRED_LOCALLY), d.published());
    assertFalse(d.has(SessionCommand.FencedDelete.class));
    // On the next lease, the old key (still there until the revoke) is not campaigned against.
    d.step(new SessionInput.Live(OTHER_LEASE, d.now + 2 * S, d.now));
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 80, 80), 81));
    assertFalse(d.has(SessionCommand.Campaign.class) || d.has(SessionCommand.FencedDelete.class), d.last.toString());
    d.step(new SessionInput.KeySeen(null, 82));
    assertEquals(OTHER_LEASE, d.only(SessionCommand.Campaign.class).leaseId());
  }

  @Test
  void closeAsMasterTellsClosedLeavesAndDeletesItsKey() {
    elect(90);
    d.step(new Input.Close());
    assertEquals(List.of(Cause.CLOSED), d.published());
    assertEquals(ElectorState.STOPPED, m.role());
    d.only(SessionCommand.Leave.class);
    assertEquals(90, d.only(SessionCommand.FencedDelete.class).token());
  }

  @Test
  void aClosedElectionsFailedDeleteIsHandedToTheSession() {
    elect(92);
    d.step(new Input.Close());
    d.step(new SessionInput.DeleteFailed(d.only(SessionCommand.FencedDelete.class).op(), "timed out"));
    assertEquals(92, d.only(SessionCommand.DeleteLater.class).token());
  }

  @Test
  void theSessionClosingStopsTheElectionWithOneEventAndNoDelete() {
    elect(91);
    d.step(new SessionInput.Ended(LEASE, Cause.CLOSED));
    assertEquals(List.of(Cause.CLOSED), d.published());
    assertEquals(ElectorState.STOPPED, m.role());
    assertFalse(d.has(SessionCommand.FencedDelete.class));
    d.step(new Input.Close());
    assertTrue(d.last.isEmpty(), d.last.toString());
  }

  @Test
  void aWinArrivingAfterCloseIsDeleted() {
    SessionCommand.Campaign c = campaigning();
    d.step(new Input.Close());
    d.step(new EtcdInput.CampaignWon(c.op(), 95));
    assertEquals(95, d.only(SessionCommand.FencedDelete.class).token());
    assertEquals(ElectorState.STOPPED, m.role());
  }


  @Test
  void theSessionsOutageIsReportedOnceInTheRoleHeldAndItsRecoveryToo() {
    elect(10);
    d.step(new SessionInput.Unavailable("etcd unreachable"));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), d.published());
    Command.Publish p = d.only(Command.Publish.class);
    assertEquals(ElectorState.MASTER, p.from());
    assertEquals(ElectorState.MASTER, p.to(), "the lease's deadline, not the report, ends the term");
    assertEquals(10, MasterTerm.token(m));
    d.step(new SessionInput.Unavailable("etcd unreachable"));
    assertEquals(List.of(), d.published(), "reported once");
    d.step(new SessionInput.Recovered());
    assertEquals(List.of(Cause.STORE_RECOVERED), d.published());
    d.step(new SessionInput.Recovered());
    assertEquals(List.of(), d.published(), "recovered once");
  }

  @Test
  void aClosedElectionReportsNoOutage() {
    elect(10);
    d.step(new Input.Close());
    d.step(new SessionInput.Unavailable("etcd unreachable"));
    assertEquals(List.of(), d.published());
  }

  // ---- moves (PROTOCOL.md §11.7) ----

  private static final SessionMember TARGET = new SessionMember(OTHER_LEASE, "other", 1, 12);

  @Test
  void aMoveStepsDownFirstThenSendsOneTransferFencedOnTheToken() {
    long t = elect(40);
    d.step(new SessionInput.MoveTo(TARGET, t));
    assertEquals(ElectorState.FOLLOWER, m.role(), "the role changes before the transaction");
    assertEquals(List.of(Cause.RESIGNED), d.published());
    SessionCommand.Transfer x = d.only(SessionCommand.Transfer.class);
    assertEquals(t, x.token());
    assertEquals(TARGET, x.to());
    d.step(new SessionInput.Transferred(x.op(), true, 50));
    assertFalse(d.has(SessionCommand.Campaign.class), "the key is the target's: " + d.last);
    assertFalse(d.has(SessionCommand.FencedDelete.class), d.last.toString());
  }

  @Test
  void aMoveOfAnotherTermOrWhileNotLeadingDoesNothing() {
    long t = elect(40);
    d.step(new SessionInput.MoveTo(TARGET, t - 1));
    assertEquals(ElectorState.MASTER, m.role());
    assertTrue(d.last.isEmpty(), d.last.toString());
  }

  @Test
  void aRefusedMoveLeavesAnOrphanThatIsDeletedNotLedOn() {
    long t = elect(40);
    d.step(new SessionInput.MoveTo(TARGET, t));
    SessionCommand.Transfer x = d.only(SessionCommand.Transfer.class);
    d.step(new SessionInput.Transferred(x.op(), false, 44));
    assertEquals(t, d.only(SessionCommand.FencedDelete.class).token());
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  // ---- yield when unhealthy (PROTOCOL.md §11.7) ----

  @Test
  void anUnhealthyElectionDoesNotCampaignForAFreeKeyAndDoesOnceHealthyAgain() {
    following();
    d.step(new Input.HealthChanged(false, "the health check answered false"));
    d.step(new SessionInput.KeySeen(null, 36));
    assertFalse(d.has(SessionCommand.Campaign.class), "unhealthy: " + d.last);
    d.now += 10 * CONFIG.pollIntervalNanos();
    d.step(new SessionInput.Live(LEASE, d.now + 5 * S, d.now));
    assertFalse(d.has(SessionCommand.Campaign.class), "still unhealthy: " + d.last);
    d.step(new Input.HealthChanged(true, ""));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aMoveWhileUnhealthyIsPublishedAsUnhealthyAndFencedOnTheTokenAsAnyMove() {
    long t = elect(40);
    d.step(new Input.HealthChanged(false, "the health check answered false"));
    assertEquals(ElectorState.MASTER, m.role(), "the session, not the election, decides the move");
    assertTrue(d.published().isEmpty(), d.last.toString());
    d.step(new SessionInput.MoveTo(TARGET, t));
    assertEquals(ElectorState.FOLLOWER, m.role(), "the role changes before the transaction");
    assertEquals(List.of(Cause.UNHEALTHY), d.published());
    assertEquals(t, d.only(SessionCommand.Transfer.class).token());
  }

  @Test
  void anUnhealthyElectionStillAdoptsAKeyMovedToIt() {
    following();
    d.step(new Input.HealthChanged(false, "the health check answered false"));
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 30, 45), 45));
    assertEquals(ElectorState.MASTER, m.role(), "led, then moved on by its session, rather than orphaned");
  }

  /** following starts a live election that has seen its key held by another session. */
  private void following() {
    d.step(new Input.Start());
    d.step(new SessionInput.Live(LEASE, d.now + 5 * S, d.now));
    d.step(new SessionInput.KeySeen(new KeyRecord("other", OTHER_LEASE, 30, 30), 31));
  }

  @Test
  void theTargetAdoptsAKeyAMoveWroteWithTheMoveAsItsToken() {
    following();
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 30, 45), 45));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(45, MasterTerm.token(m));
    assertEquals(List.of(Cause.ELECTED), d.published());
    assertFalse(d.has(SessionCommand.FencedDelete.class), d.last.toString());
  }

  @Test
  void aKeyItMovedAwayAndGotBackUnchangedIsNotAdoptedAgain() {
    SessionCommand.Campaign c = campaigning();
    d.step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("other", OTHER_LEASE, 30, 30), 31));
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 30, 45), 45));
    assertEquals(ElectorState.MASTER, m.role());
    d.step(new SessionInput.MoveTo(TARGET, 45));
    SessionCommand.Transfer x = d.only(SessionCommand.Transfer.class);
    d.step(new SessionInput.TransferFailed(x.op(), "timed out"));
    // Not applied: the key is still at the given-up term's revision, so an orphan.
    assertEquals(45, d.only(SessionCommand.FencedDelete.class).token());
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 30, 45), 46));
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  @Test
  void aKeyACampaignWroteOrOnAnotherLeaseOrNamingAnotherIsNeverAdopted() {
    following();
    d.step(new SessionInput.KeySeen(new KeyRecord("other", LEASE, 30, 45), 45));
    assertEquals(ElectorState.FOLLOWER, m.role(), "names another");
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 46, 46), 46));
    assertEquals(ElectorState.FOLLOWER, m.role(), "a campaign's put");
    d.step(new SessionInput.KeySeen(new KeyRecord("me", OTHER_LEASE, 30, 47), 47));
    assertEquals(ElectorState.FOLLOWER, m.role(), "another lease");
  }

  @Test
  void aMemberNotPreferredForAFreeKeyHoldsBackAPollIntervalThenCampaigns() {
    following();
    d.step(new SessionInput.Preferred(false));
    long freed = d.now;
    d.step(new SessionInput.KeySeen(null, 36));
    assertFalse(d.has(SessionCommand.Campaign.class), "held back: " + d.last);
    Command.SetTimer t = d.timer(SessionElection.Timer.CAMPAIGN);
    assertEquals(freed + CONFIG.pollIntervalNanos(), t.atNanos());
    d.fire(t);
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aMemberThatBecomesPreferredCampaignsAtOnce() {
    following();
    d.step(new SessionInput.Preferred(false));
    d.step(new SessionInput.KeySeen(null, 36));
    assertFalse(d.has(SessionCommand.Campaign.class), d.last.toString());
    d.step(new SessionInput.Preferred(true));
    d.only(SessionCommand.Campaign.class);
  }

  @Test
  void aKeyMovedBeforeTheElectionFirstSawItIsNotAdopted() {
    // An election opened again under its name on the session: the moved key it first sees may be
    // its predecessor's term (that close's delete not yet applied); adopting it would elect that
    // term's token a second time.
    d.step(new Input.Start());
    d.step(new SessionInput.Live(LEASE, d.now + 5 * S, d.now));
    d.step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 30, 45), 50));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(45, d.only(SessionCommand.FencedDelete.class).token());
    assertTrue(d.published().isEmpty());
  }
}
