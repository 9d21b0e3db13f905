package dev.leasehold.etcd.protocol;

import dev.leasehold.Participant;
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

/** The queue and the handover (PROTOCOL.md §4.5) on the pure machine, with no store. */
class QueueHandoverTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true);
  private static final KeyRecord OTHER = new KeyRecord("other", 5, 3, 3);
  private static final long OWN = 77;

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private long now = 50 * S;
  private List<Command> last;
  private long watchId;
  private Command.SetTimer standbyRenew;

  private void step(Input in) {
    last = m.step(in, now);
    last.stream().filter(EtcdCommand.Watch.class::isInstance).forEach(w -> watchId = ((EtcdCommand.Watch) w).watchId());
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
    return last.stream()
        .filter(Command.Publish.class::isInstance)
        .map(c -> ((Command.Publish) c).cause())
        .collect(Collectors.toList());
  }

  private Command.SetTimer timer(TimerKind kind) {
    return last.stream()
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** A follower that sees OTHER lead, takes its standby lease OWN and enlists it at revision 5. */
  private void enlistedFollower() {
    step(new Input.Start());
    EtcdCommand.Poll first = only(EtcdCommand.Poll.class);
    assertFalse(first.participants(), "a follower keeps no view of the queue");
    step(new EtcdInput.PollResult(first.op(), OTHER, 4));
    assertFalse(only(EtcdCommand.Watch.class).queue(), "nor watches it");
    long grant = only(EtcdCommand.GrantLease.class).op();
    now += 3 * MS;
    step(new EtcdInput.LeaseGranted(grant, OWN, 3));
    standbyRenew = timer(TimerKind.RENEW);
    EtcdCommand.Enlist enlist = only(EtcdCommand.Enlist.class);
    assertEquals(OWN, enlist.leaseId(), "the standby lease joins the queue");
    step(new EtcdInput.Enlisted(enlist.op(), 5));
  }

  /**
   * The read-first path at start (without the cold campaign, PROTOCOL.md §4.5, as in this test's
   * config; also the path of a candidate sent back to reading): K is free and this candidate has
   * no participant key yet, so its way to the campaign is four calls in a row: read K, count the
   * whole queue, grant, campaign.
   */
  @Test
  void aColdStartReadsCountsGrantsAndCampaignsInARow() {
    step(new Input.Start());
    EtcdCommand.Poll read = only(EtcdCommand.Poll.class);
    assertFalse(has(EtcdCommand.GrantLease.class), "nothing is granted before the read");
    step(new EtcdInput.PollResult(read.op(), null, 4));
    EtcdCommand.Rank count = only(EtcdCommand.Rank.class);
    assertEquals(0, count.leaseId(), "without a participant key it counts them all");
    assertFalse(has(EtcdCommand.GrantLease.class), "nor before the count");
    step(new EtcdInput.Ranked(count.op(), 0, 4));
    long grant = only(EtcdCommand.GrantLease.class).op();
    assertFalse(has(EtcdCommand.Campaign.class), "nor is the campaign sent before the grant's answer");
    step(new EtcdInput.LeaseGranted(grant, OWN, 3));
    assertEquals(OWN, only(EtcdCommand.Campaign.class).leaseId());
  }

  /** The follower above, at the head of the queue, wins the campaign; it reads the queue. */
  private void masterWithStandby() {
    enlistedFollower();
    now += 100 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    step(new EtcdInput.Ranked(only(EtcdCommand.Rank.class).op(), 0, 10));
    long op = only(EtcdCommand.Campaign.class).op();
    step(new EtcdInput.CampaignWon(op, 11));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(11, MasterTerm.token(m));
    assertTrue(only(EtcdCommand.Watch.class).queue(), "the MASTER watches the queue");
    EtcdCommand.Poll view = only(EtcdCommand.Poll.class);
    assertTrue(view.participants(), "and reads it");
    step(new EtcdInput.PollResult(view.op(), new KeyRecord("me", OWN, 11, 11), 11,
        List.of(new Participant("me", OWN, 5, 5))));
  }

  @Test
  void aResigningMasterHandsTheKeyToTheHeadOfTheQueueAndKeepsItsLease() {
    masterWithStandby();
    Participant b = new Participant("b", 90, 12, 12);
    Participant c = new Participant("c", 91, 13, 13);
    step(new EtcdInput.WatchEnlisted(watchId, c, 13));
    step(new EtcdInput.WatchEnlisted(watchId, b, 12));
    now += 1 * S;
    step(new Input.Resign(Cause.RESIGNED));
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before the handover goes out");
    assertEquals(List.of(Cause.RESIGNED), published());
    EtcdCommand.Handover h = only(EtcdCommand.Handover.class);
    assertEquals(11, h.token());
    assertEquals(OWN, h.leaseId());
    assertEquals(b, h.successor(), "the head: the lowest mod revision, leaving out its own key");
    assertFalse(has(Command.Release.class), "the lease stays, as a standby");
    assertEquals(OWN, m.leaseId());
    assertTrue(timer(TimerKind.RENEW).atNanos() >= now, "still renewed, as a standby lease");
    step(new EtcdInput.HandedOver(h.op(), 14));
    assertFalse(has(Command.Release.class));
    // The successor's key shows in the watch: a new leader, with the handover's revision as token.
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("b", 90, 11, 14), 14));
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    assertEquals(14, m.leader().fencingToken());
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  @Test
  void aRefusedHandoverReleasesTheLeaseAsAResignWithoutSuccessorDoes() {
    masterWithStandby();
    step(new EtcdInput.WatchEnlisted(watchId, new Participant("b", 90, 12, 12), 12));
    step(new Input.Resign(Cause.RESIGNED));
    EtcdCommand.Handover h = only(EtcdCommand.Handover.class);
    // b's lease ended meanwhile: the compare on its participant key fails; K is still ours.
    step(new EtcdInput.HandoverRefused(h.op(), new KeyRecord("me", OWN, 11, 11), 14));
    assertEquals(OWN, only(Command.Release.class).leaseId(), "K goes with the released lease");
    assertEquals(0, m.leaseId());
    assertFalse(published().contains(Cause.LEADER_CHANGED), () -> "our own old term named a leader: " + last);
  }

  @Test
  void aResignWithNobodyQueuedReleasesTheLease() {
    masterWithStandby();
    step(new Input.Resign(Cause.RESIGNED));
    assertFalse(has(EtcdCommand.Handover.class));
    assertEquals(OWN, only(Command.Release.class).leaseId());
  }

  @Test
  void aFollowerAdoptsTheKeyHandedToItsStandbyLease() {
    enlistedFollower();
    now += 10 * MS;
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("me", OWN, 3, 20), 20));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(20, MasterTerm.token(m), "the token is the handover's revision, not the create revision");
    assertEquals(List.of(Cause.ELECTED), published());
    assertFalse(has(EtcdCommand.Campaign.class), "no campaign: the key is already ours");
  }

  @Test
  void aFollowerWhoseStandbyDeadlineIsNearRenewsBeforeAdopting() {
    enlistedFollower();
    // Its standby renewals failed for a while: under TTL/6 of its deadline (2.67 s) is left.
    now += 2_300 * MS;
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("me", OWN, 3, 20), 20));
    assertEquals(ElectorState.FOLLOWER, m.role());
    long ka = only(EtcdCommand.KeepAlive.class).op();
    long sent = now;
    now += 2 * MS;
    step(new EtcdInput.KeepAliveAcked(ka, 3, 7));
    now += 1 * MS;
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), new KeyRecord("me", OWN, 3, 20), 21, 7));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(20, MasterTerm.token(m));
    assertTrue(m.deadline() > sent + S, "leads on the fresh deadline");
  }

  @Test
  void onlyTheHeadCampaignsAtOnceTheOthersAfterTheirRanksStagger() {
    enlistedFollower();
    now += 100 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    EtcdCommand.Rank rank = only(EtcdCommand.Rank.class);
    assertEquals(OWN, rank.leaseId(), "counts the participant keys named before its own");
    assertFalse(has(EtcdCommand.Campaign.class), "no campaign before the count");
    long absentAt = now;
    now += 30 * MS;
    step(new EtcdInput.Ranked(rank.op(), 2, 11));
    assertFalse(has(EtcdCommand.Campaign.class), "rank 2 waits");
    Command.SetTimer later = timer(TimerKind.CAMPAIGN);
    assertEquals(absentAt + 200 * MS, later.atNanos(),
        "one stagger (retryBackoffInitial) per rank, from when the key was seen absent");
    now = later.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, later.seq()));
    assertFalse(has(EtcdCommand.Campaign.class), "a read first: no proposal if the key was taken meanwhile");
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 12));
    assertEquals(OWN, only(EtcdCommand.Campaign.class).leaseId(), "the key is still free: we campaign");
  }

  @Test
  void aCandidateThatSeesTheHeadWinStaysOut() {
    enlistedFollower();
    step(new EtcdInput.WatchDelete(watchId, 10));
    step(new EtcdInput.Ranked(only(EtcdCommand.Rank.class).op(), 1, 11));
    Command.SetTimer later = timer(TimerKind.CAMPAIGN);
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("x", 60, 12, 12), 12));
    now = later.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, later.seq()));
    assertFalse(has(EtcdCommand.Campaign.class));
  }

  @Test
  void aFailedCountWaitsAsFarDownTheQueueRatherThanJoinAHerd() {
    enlistedFollower();
    long absentAt = now;
    step(new EtcdInput.WatchDelete(watchId, 10));
    step(new EtcdInput.RankFailed(only(EtcdCommand.Rank.class).op(), "timed out"));
    assertFalse(has(EtcdCommand.Campaign.class));
    assertEquals(absentAt + Follower.FAILED_RANK * 100 * MS, timer(TimerKind.CAMPAIGN).atNanos());
  }

  @Test
  void aFollowerNotYetQueuedCountsTheWholeQueue() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), OTHER, 4));
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertEquals(0, only(EtcdCommand.Rank.class).leaseId(), "no participant key of its own yet");
  }

  @Test
  void theMasterDropsItsViewOfTheQueueWhenItStepsDown() {
    masterWithStandby();
    step(new EtcdInput.WatchEnlisted(watchId, new Participant("b", 90, 12, 12), 12));
    step(new Input.Resign(Cause.RESIGNED));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(90, only(EtcdCommand.Handover.class).successor().leaseId());
    assertFalse(only(EtcdCommand.Watch.class).queue(), "back to a watch of the key alone");
    assertTrue(has(EtcdCommand.CancelWatch.class));
  }

  @Test
  void aTurnWhoseReadFindsTheKeyTakenStaysOut() {
    enlistedFollower();
    step(new EtcdInput.WatchDelete(watchId, 10));
    step(new EtcdInput.Ranked(only(EtcdCommand.Rank.class).op(), 1, 11));
    Command.SetTimer later = timer(TimerKind.CAMPAIGN);
    now = later.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, later.seq()));
    // The head's campaign committed; its watch event has not arrived yet.
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("x", 60, 12, 12), 12));
    assertFalse(has(EtcdCommand.Campaign.class));
    assertEquals(12, m.leader().fencingToken());
  }

  @Test
  void aStandbyRenewalsReadCountsThePlaceSoTheKeysEndNeedsNoCount() {
    enlistedFollower();
    Command.SetTimer renew = standbyRenew;
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 7));
    EtcdCommand.ConfirmRead read = only(EtcdCommand.ConfirmRead.class);
    assertEquals(OWN, read.rankOf(), "the renewal's read also counts those ahead");
    step(new EtcdInput.ConfirmRead(read.op(), OTHER, 9, 7, 2));
    now += 10 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertFalse(has(EtcdCommand.Rank.class), "the count is known");
    // Two were ahead; one was OTHER (lease 5 is named before ours), whose key went with its lease.
    assertEquals(now + 100 * MS, timer(TimerKind.CAMPAIGN).atNanos());
  }
}
