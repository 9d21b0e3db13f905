package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
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
  private long now = 1_000 * S;
  private List<Command> last;

  private List<Command> step(Input in) {
    last = m.step(in, now);
    return last;
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private boolean has(Class<? extends Command> type) {
    return last.stream().anyMatch(type::isInstance);
  }

  private List<Cause> published() {
    return last.stream().filter(Command.Publish.class::isInstance)
        .map(c -> ((Command.Publish) c).cause()).collect(Collectors.toList());
  }

  private SessionCommand.Campaign campaigning() {
    step(new Input.Start());
    only(SessionCommand.Join.class);
    step(new SessionInput.Live(LEASE, now + 2 * S, now));
    return only(SessionCommand.Campaign.class);
  }

  private long elect(long revision) {
    SessionCommand.Campaign c = campaigning();
    assertEquals(LEASE, c.leaseId());
    step(new EtcdInput.CampaignWon(c.op(), revision));
    assertEquals(List.of(Cause.ELECTED), published());
    return revision;
  }

  @Test
  void campaignsOnlyOnceStartedAndTheSessionIsLive() {
    step(new SessionInput.Live(LEASE, now + 2 * S, now));
    assertFalse(has(SessionCommand.Campaign.class), "not started");
    step(new Input.Start());
    only(SessionCommand.Join.class);
    assertFalse(has(SessionCommand.Campaign.class), "the join brings the lease");
    step(new SessionInput.Live(LEASE, now + 2 * S, now));
    only(SessionCommand.Campaign.class);
  }

  @Test
  void aWinMakesAMasterWhoseTokenIsThePutsRevisionAndWhoseDeadlineIsTheSessions() {
    elect(40);
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(40, m.fencingToken());
    assertEquals(LEASE, m.leaseId());
    assertEquals(now + 2 * S, m.deadline());
    step(new SessionInput.Live(LEASE, now + 5 * S, now + S));
    assertEquals(now + 5 * S, m.deadline(), "a renewal of the session extends the term");
    assertTrue(last.isEmpty(), "and costs the election nothing: " + last);
  }

  @Test
  void aLateWinIsNeverLedOnButDeletedByItsRevision() {
    SessionCommand.Campaign c = campaigning();
    step(new EtcdInput.CampaignFailed(c.op(), "timed out after 750 ms"));
    step(new EtcdInput.CampaignWon(c.op(), 41));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(41, only(SessionCommand.FencedDelete.class).token());
    assertTrue(published().isEmpty());
  }

  @Test
  void aWinAfterTheSessionsDeadlineIsDeletedNotLed() {
    SessionCommand.Campaign c = campaigning();
    now += 3 * S;
    step(new EtcdInput.CampaignWon(c.op(), 42));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(42, only(SessionCommand.FencedDelete.class).token());
  }

  @Test
  void aKeyOnTheSessionsOwnLeaseIsNeverAdoptedButDeleted() {
    SessionCommand.Campaign c = campaigning();
    step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("me", LEASE, 30, 30), 35));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(30, only(SessionCommand.FencedDelete.class).token());
    step(new SessionInput.Deleted(only(SessionCommand.FencedDelete.class).op(), true, 36));
    only(SessionCommand.Campaign.class);
  }

  @Test
  void theWatchShowingThisSessionsPutWhileTheCampaignIsInFlightIsLeftToTheReply() {
    SessionCommand.Campaign c = campaigning();
    step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 43, 43), 43));
    assertFalse(has(SessionCommand.FencedDelete.class), last.toString());
    step(new EtcdInput.CampaignWon(c.op(), 43));
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void anotherHolderIsTheLeaderAndItsDeleteStartsACampaign() {
    SessionCommand.Campaign c = campaigning();
    step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("other", OTHER_LEASE, 20, 20), 25));
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    assertEquals("other", m.leader().candidateId());
    step(new SessionInput.KeySeen(null, 26));
    only(SessionCommand.Campaign.class);
  }

  @Test
  void aStaleViewOfTheKeyIsIgnored() {
    elect(50);
    step(new SessionInput.KeySeen(null, 49));
    assertEquals(ElectorState.MASTER, m.role());
    step(new SessionInput.KeySeen(new KeyRecord("other", OTHER_LEASE, 51, 51), 51));
    assertEquals(List.of(Cause.KEY_TAKEN), published());
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals("other", m.leader().candidateId(), "the loss names the new holder");
  }

  @Test
  void theKeyDeletedUnderAMasterEndsTheTerm() {
    elect(50);
    step(new SessionInput.KeySeen(null, 52));
    assertEquals(Cause.KEY_DELETED, published().get(0));
    assertEquals(0, m.fencingToken());
  }

  @Test
  void resignStepsDownFirstThenDeletesFencedAndSitsOutTheHoldoff() {
    long token = elect(60);
    step(new Input.Resign());
    Command.SetTimer holdoff = timer(SessionElection.Timer.HOLDOFF);
    assertEquals(Cause.RESIGNED, ((Command.Publish) last.get(0)).cause(), "the role changes first: " + last);
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(token, only(SessionCommand.FencedDelete.class).token());
    step(new SessionInput.Deleted(only(SessionCommand.FencedDelete.class).op(), true, 61));
    assertFalse(has(SessionCommand.Campaign.class), "held off");
    now += 3 * S;
    step(new Input.TimerFired(holdoff.timer(), holdoff.seq()));
    assertFalse(has(SessionCommand.Campaign.class), "the session's deadline passed meanwhile");
    step(new SessionInput.Live(LEASE, now + 2 * S, now));
    only(SessionCommand.Campaign.class);
  }

  @Test
  void aResignsDeleteIsRetriedUntilAnsweredAndDroppedWithTheLease() {
    elect(70);
    step(new Input.Resign());
    SessionCommand.FencedDelete d = only(SessionCommand.FencedDelete.class);
    step(new SessionInput.DeleteFailed(d.op(), "timed out"));
    Command.SetTimer retry = timer(SessionElection.Timer.DELETE);
    step(new Input.TimerFired(retry.timer(), retry.seq()));
    assertEquals(70, only(SessionCommand.FencedDelete.class).token());
    step(new SessionInput.DeleteFailed(only(SessionCommand.FencedDelete.class).op(), "timed out"));
    retry = timer(SessionElection.Timer.DELETE);
    step(new SessionInput.Ended(LEASE, Cause.LEASE_EXPIRED_LOCALLY));
    step(new Input.TimerFired(retry.timer(), retry.seq()));
    assertFalse(has(SessionCommand.FencedDelete.class), "the key went with the lease: " + last);
  }

  @Test
  void theSessionsLossEndsTheTermWithItsCauseAndNoDelete() {
    elect(80);
    step(new SessionInput.Ended(LEASE, Cause.LEASE_EXPIRED_LOCALLY));
    assertEquals(List.of(Cause.LEASE_EXPIRED_LOCALLY), published());
    assertFalse(has(SessionCommand.FencedDelete.class));
    // On the next lease, the old key (still there until the revoke) is not campaigned against.
    step(new SessionInput.Live(OTHER_LEASE, now + 2 * S, now));
    step(new SessionInput.KeySeen(new KeyRecord("me", LEASE, 80, 80), 81));
    assertFalse(has(SessionCommand.Campaign.class) || has(SessionCommand.FencedDelete.class), last.toString());
    step(new SessionInput.KeySeen(null, 82));
    assertEquals(OTHER_LEASE, only(SessionCommand.Campaign.class).leaseId());
  }

  @Test
  void closeAsMasterTellsClosedLeavesAndDeletesItsKey() {
    elect(90);
    step(new Input.Close());
    assertEquals(List.of(Cause.CLOSED), published());
    assertEquals(ElectorState.STOPPED, m.role());
    only(SessionCommand.Leave.class);
    assertEquals(90, only(SessionCommand.FencedDelete.class).token());
  }

  @Test
  void aClosedElectionsFailedDeleteIsHandedToTheSession() {
    elect(92);
    step(new Input.Close());
    step(new SessionInput.DeleteFailed(only(SessionCommand.FencedDelete.class).op(), "timed out"));
    assertEquals(92, only(SessionCommand.DeleteLater.class).token());
  }

  @Test
  void theSessionClosingStopsTheElectionWithOneEventAndNoDelete() {
    elect(91);
    step(new SessionInput.Ended(LEASE, Cause.CLOSED));
    assertEquals(List.of(Cause.CLOSED), published());
    assertEquals(ElectorState.STOPPED, m.role());
    assertFalse(has(SessionCommand.FencedDelete.class));
    step(new Input.Close());
    assertTrue(last.isEmpty(), last.toString());
  }

  @Test
  void aWinArrivingAfterCloseIsDeleted() {
    SessionCommand.Campaign c = campaigning();
    step(new Input.Close());
    step(new EtcdInput.CampaignWon(c.op(), 95));
    assertEquals(95, only(SessionCommand.FencedDelete.class).token());
    assertEquals(ElectorState.STOPPED, m.role());
  }

  private Command.SetTimer timer(SessionElection.Timer kind) {
    return last.stream().filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }
}
