package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ElectionMachineTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  // TTL 3 s, margin 300 ms, drift 1 %: window = 3 s × 0.99 − 0.3 s = 2.67 s.
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final long WINDOW = 2_670 * MS;
  private static final long LEASE = 77;

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
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

  private <T extends Command> boolean has(Class<T> type) {
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
        .filter(c -> c instanceof Command.SetTimer t && t.kind() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** Drives a fresh machine to its first CAS: the key is absent and a lease was granted. */
  private void campaignWithFreshLease() {
    step(new Input.Start());
    step(new Input.PollResult(only(Command.Poll.class).op(), null, 10));
    step(new Input.LeaseGranted(only(Command.GrantLease.class).op(), LEASE, 3));
  }

  /** Drives a fresh machine to MASTER; returns the grant's send time. */
  private long elect(long createRevision) {
    step(new Input.Start());
    long pollOp = only(Command.Poll.class).op();
    step(new Input.PollResult(pollOp, null, 10));
    long grantSent = now;
    long grantOp = only(Command.GrantLease.class).op();
    assertEquals(ElectorState.CANDIDATE, m.role());
    now += 5 * MS;
    step(new Input.LeaseGranted(grantOp, LEASE, 3));
    long campaignOp = only(Command.Campaign.class).op();
    now += 5 * MS;
    step(new Input.CampaignWon(campaignOp, createRevision));
    assertEquals(ElectorState.MASTER, m.role());
    return grantSent;
  }

  @Test
  void followerCampaignsWhenTheKeyIsAbsentAndWinsTheCompareAndSwap() {
    long grantSent = elect(11);
    assertEquals(List.of(Cause.ELECTED), published());
    assertEquals(11, m.fencingToken());
    assertEquals(grantSent + WINDOW, m.deadline());
    assertEquals(grantSent + WINDOW, timer(TimerKind.DEADLINE).atNanos());
    assertEquals(grantSent + S / 2, timer(TimerKind.RENEW).atNanos(), "a MASTER renews every TTL/6");
  }

  @Test
  void masterStepsDownAtItsLocalDeadlineWhenNoRenewalIsConfirmed() {
    long grantSent = elect(11);
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    now = grantSent + WINDOW;
    step(new Input.TimerFired(TimerKind.DEADLINE, deadline.seq()));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEASE_EXPIRED_LOCALLY), published());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
  }

  @Test
  void renewalExtendsTheDeadlineFromTheKeepAliveSendTimeNotTheReplyTime() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    long sentAt = now;
    long kaOp = only(Command.KeepAlive.class).op();
    now += 400 * MS; // a slow reply
    step(new Input.KeepAliveAcked(kaOp, 3, 5));
    long readOp = only(Command.ConfirmRead.class).op();
    now += 10 * MS;
    step(new Input.ConfirmRead(readOp, new KeyRecord("me", LEASE, 11, 11), 12, 5));
    assertEquals(sentAt + WINDOW, m.deadline());
    assertEquals(sentAt + WINDOW, timer(TimerKind.DEADLINE).atNanos());
  }

  @Test
  void keepAliveAckAloneDoesNotExtendTheDeadline() {
    long grantSent = elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new Input.KeepAliveAcked(only(Command.KeepAlive.class).op(), 3, 5));
    assertEquals(grantSent + WINDOW, m.deadline());
    step(new Input.ConfirmFailed(only(Command.ConfirmRead.class).op(), "timed out"));
    assertEquals(grantSent + WINDOW, m.deadline());
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void ackFromAnotherRaftTermDoesNotConfirmTheRenewal() {
    long grantSent = elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new Input.KeepAliveAcked(only(Command.KeepAlive.class).op(), 3, 4));
    // A deposed etcd leader (term 4) acked; the read is served by the term-5 leader.
    step(new Input.ConfirmRead(only(Command.ConfirmRead.class).op(), new KeyRecord("me", LEASE, 11, 11), 12, 5));
    assertEquals(grantSent + WINDOW, m.deadline());
    assertTrue(timer(TimerKind.RENEW).atNanos() - now <= 100 * MS, "renews again soon");
  }

  @Test
  void keepAliveReportingTheLeaseGoneStepsDownWithLeaseRevoked() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new Input.KeepAliveFailed(only(Command.KeepAlive.class).op(), true, "lease not found"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEASE_REVOKED), published());
    assertFalse(has(Command.Revoke.class));
  }

  @Test
  void keyDeletedWhileLeaseAliveStepsDownAtOnceAndReportsKeyDeleted() {
    elect(11);
    step(new Input.Start()); // no-op, but keeps the harness honest about idempotent start
    long watchId = watchIdAfterElection();
    step(new Input.WatchDelete(watchId, 20));
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before knowing why");
    assertTrue(published().isEmpty());
    Command.ProbeLease probe = only(Command.ProbeLease.class);
    step(new Input.LeaseProbed(probe.op(), true, true));
    assertEquals(List.of(Cause.KEY_DELETED), published());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
  }

  @Test
  void keyDeletedWithItsLeaseReportsLeaseRevoked() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.WatchDelete(watchId, 20));
    step(new Input.LeaseProbed(only(Command.ProbeLease.class).op(), true, false));
    assertEquals(List.of(Cause.LEASE_REVOKED), published());
  }

  @Test
  void keyBoundToAnotherLeaseWithTheSameCandidateIdIsTakenNotOurs() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new Input.KeepAliveAcked(only(Command.KeepAlive.class).op(), 3, 5));
    // Same value "me", but another lease and create revision: another process with our id.
    step(new Input.ConfirmRead(only(Command.ConfirmRead.class).op(), new KeyRecord("me", 99, 15, 15), 16, 5));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.KEY_TAKEN), published());
  }

  @Test
  void followerSeeingItsOwnCandidateIdOnAnotherLeaseStaysFollower() {
    step(new Input.Start());
    step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("me", 99, 15, 15), 16));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    assertEquals(15, m.leader().fencingToken());
  }

  @Test
  void lostCompareAndSwapRevokesTheUnusedLeaseAndKnowsTheLeader() {
    campaignWithFreshLease();
    step(new Input.CampaignLost(only(Command.Campaign.class).op(), new KeyRecord("other", 5, 12, 12), 12));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
    assertEquals("other", m.leader().candidateId());
  }

  @Test
  void campaignWithUnknownOutcomeRevokesTheLeaseSoNoKeyIsLeftBehind() {
    campaignWithFreshLease();
    step(new Input.CampaignFailed(only(Command.Campaign.class).op(), "timed out"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
    assertEquals(List.of(Cause.ETCD_UNAVAILABLE), published());
  }

  @Test
  void unavailabilityIsReportedOncePerOutageNotPerRetry() {
    step(new Input.Start());
    int reports = 0;
    for (int i = 0; i < 10; i++) {
      step(new Input.PollFailed(only(Command.Poll.class).op(), "refused"));
      reports += published().size();
      Command.SetTimer t = timer(TimerKind.POLL);
      assertTrue(t.atNanos() - now <= CONFIG.backoffMaxNanos(), "backoff is capped");
      now = t.atNanos();
      step(new Input.TimerFired(TimerKind.POLL, t.seq()));
    }
    assertEquals(1, reports);
    step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("x", 5, 3, 3), 4));
    assertEquals(List.of(Cause.ETCD_RECOVERED, Cause.LEADER_CHANGED), published());
  }

  @Test
  void commitTooCloseToTheDeadlineIsNotLeadership() {
    step(new Input.Start());
    step(new Input.PollResult(only(Command.Poll.class).op(), null, 10));
    long grantOp = only(Command.GrantLease.class).op();
    now += WINDOW; // the grant and the transaction together took the whole window
    step(new Input.LeaseGranted(grantOp, LEASE, 3));
    step(new Input.CampaignWon(only(Command.Campaign.class).op(), 11));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertTrue(published().isEmpty());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
  }

  @Test
  void resignRevokesAndSitsOutTheNextElection() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.Resign());
    assertEquals(List.of(Cause.RESIGNED), published());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
    long pollOp = only(Command.Poll.class).op();
    long resignedAt = now;
    now += 2 * MS;
    step(new Input.WatchDelete(watchId, 20));
    assertFalse(has(Command.GrantLease.class), "a resigned instance does not campaign at once");
    // The read sent at resign time was served before the revocation: older than the delete.
    step(new Input.PollResult(pollOp, new KeyRecord("me", LEASE, 11, 11), 15));
    assertFalse(has(Command.GrantLease.class));
    assertTrue(published().isEmpty(), "its own abandoned key is not reported as a leader");
    assertEquals(resignedAt + 3 * S, timer(TimerKind.POLL).atNanos());
  }

  @Test
  void holdOffEndsOnceAnotherCandidateHasTakenOver() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.Resign());
    step(new Input.PollResult(only(Command.Poll.class).op(), null, 20));
    assertFalse(has(Command.GrantLease.class));
    step(new Input.WatchPut(watchId, new KeyRecord("other", 5, 21, 21), 21));
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    // The new leader resigns at once: the instance that resigned earlier may take over now.
    now += 10 * MS;
    step(new Input.WatchDelete(watchId, 22));
    assertEquals(ElectorState.CANDIDATE, m.role());
    assertTrue(has(Command.GrantLease.class));
  }

  @Test
  void closeRevokesTheLeaseAndEndsTheTermWithClosed() {
    elect(11);
    step(new Input.Close());
    assertEquals(ElectorState.STOPPED, m.role());
    assertEquals(List.of(Cause.CLOSED), published());
    Command.Publish p = only(Command.Publish.class);
    assertEquals(ElectorState.MASTER, p.from());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
  }

  @Test
  void grantArrivingAfterCloseIsRevoked() {
    step(new Input.Start());
    step(new Input.PollResult(only(Command.Poll.class).op(), null, 10));
    long grantOp = only(Command.GrantLease.class).op();
    step(new Input.Close());
    step(new Input.LeaseGranted(grantOp, 123, 3));
    assertEquals(123, only(Command.Revoke.class).leaseId());
  }

  @Test
  void staleResultsAreIgnored() {
    elect(11);
    List<Command> out = step(new Input.KeepAliveAcked(9999, 3, 5));
    assertTrue(out.isEmpty());
    out = step(new Input.TimerFired(TimerKind.DEADLINE, 9999));
    assertTrue(out.isEmpty());
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void masterIgnoresTheWatchEventOfItsOwnPut() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.WatchPut(watchId, new KeyRecord("me", LEASE, 11, 11), 11));
    assertEquals(ElectorState.MASTER, m.role());
    step(new Input.WatchPut(watchId, new KeyRecord("op", 0, 11, 30), 30));
    assertEquals(ElectorState.FOLLOWER, m.role(), "an operator rebinding the key takes it");
    assertEquals(List.of(Cause.KEY_TAKEN), published());
  }

  @Test
  void tokensOfLaterTermsAreLarger() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.WatchDelete(watchId, 20));
    step(new Input.LeaseProbed(only(Command.ProbeLease.class).op(), true, false));
    step(new Input.PollResult(only(Command.Poll.class).op(), null, 20));
    step(new Input.LeaseGranted(only(Command.GrantLease.class).op(), 88, 3));
    step(new Input.CampaignWon(only(Command.Campaign.class).op(), 21));
    assertEquals(21, m.fencingToken());
    assertNotEquals(LEASE, m.leaseId());
  }

  /**
   * A standby follower's renewal read that etcd served before the follower's own
   * compare-and-swap, and that arrives after CampaignWon, shows the key as it was before this
   * term began (absent, or the previous holder's). It must not unseat the new MASTER; it still
   * confirms the renewal. Found by the protocol-spec simulation (seed 109440 of SimulationTest):
   * the new MASTER published KEY_DELETED 4 ms after ELECTED on a healthy network.
   */
  @Test
  void standbyRenewalReadServedBeforeOurCompareAndSwapDoesNotUnseatTheNewMaster() {
    ProtocolConfig standby =
        new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true);
    KeyRecord previous = new KeyRecord("other", 5, 12, 12);
    for (KeyRecord staleView : new KeyRecord[] {null, previous}) {
      ElectionMachine s = new ElectionMachine(standby, new SplittableRandom(1));
      long t = 1_000 * S;
      last = s.step(new Input.Start(), t);
      last = s.step(new Input.PollResult(only(Command.Poll.class).op(), previous, 13), t);
      long watch = only(Command.Watch.class).watchId();
      long grantSent = t;
      long grantOp = only(Command.GrantLease.class).op();
      t += 2 * MS;
      last = s.step(new Input.LeaseGranted(grantOp, LEASE, 3), t);
      Command.SetTimer renew = timer(TimerKind.RENEW);
      t = renew.atNanos();
      last = s.step(new Input.TimerFired(TimerKind.RENEW, renew.seq()), t);
      long renewSent = t;
      t += 1 * MS;
      last = s.step(new Input.KeepAliveAcked(only(Command.KeepAlive.class).op(), 3, 5), t);
      long readOp = only(Command.ConfirmRead.class).op();
      // While that read is in flight, the holder's key goes and the standby lease wins the CAS.
      t += 1 * MS;
      last = s.step(new Input.WatchDelete(watch, 20), t);
      long campaignOp = only(Command.Campaign.class).op();
      t += 1 * MS;
      last = s.step(new Input.CampaignWon(campaignOp, 21), t);
      assertEquals(ElectorState.MASTER, s.role());
      assertEquals(grantSent + WINDOW, s.deadline());
      // The read was served at revision 19 or 20, before our key was created at 21.
      t += 1 * MS;
      last = s.step(new Input.ConfirmRead(readOp, staleView, staleView == null ? 20 : 19, 5), t);
      assertEquals(ElectorState.MASTER, s.role(), () -> "stale view " + staleView + " unseated the MASTER: " + last);
      assertTrue(published().isEmpty(), () -> "published " + published());
      assertFalse(has(Command.ProbeLease.class));
      assertFalse(has(Command.Revoke.class));
      assertEquals(renewSent + WINDOW, s.deadline(), "the renewal it confirms still counts");
    }
  }

  /**
   * A CAS of ours that we saw lose (CampaignLost) can still be applied later when the client
   * library retried it and the other copy reaches etcd after the key was freed: the key is then
   * bound to the lease we keep as a standby while we follow. Renewing that lease would keep the
   * key, and so every other candidate, out for good; the follower revokes it instead. Found by
   * the protocol-spec simulation (seed 892503 of SimulationTest: no MASTER for the rest of the
   * run).
   */
  @Test
  void followerThatFindsTheKeyBoundToItsStandbyLeaseRevokesIt() {
    ProtocolConfig standby =
        new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true);
    ElectionMachine s = new ElectionMachine(standby, new SplittableRandom(1));
    long t = 1_000 * S;
    last = s.step(new Input.Start(), t);
    last = s.step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("other", 5, 12, 12), 13), t);
    long watch = only(Command.Watch.class).watchId();
    long grantOp = only(Command.GrantLease.class).op();
    t += 2 * MS;
    last = s.step(new Input.LeaseGranted(grantOp, LEASE, 3), t);
    t += 1 * MS;
    last = s.step(new Input.WatchDelete(watch, 20), t);
    long campaignOp = only(Command.Campaign.class).op();
    t += 1 * MS;
    last = s.step(new Input.CampaignLost(campaignOp, new KeyRecord("third", 6, 21, 21), 21), t);
    assertEquals(ElectorState.FOLLOWER, s.role());
    assertEquals(LEASE, s.leaseId(), "the lost CAS's lease is kept as a standby");
    // "third" goes; a late copy of our CAS binds the key to our standby lease (revision 23).
    Command.SetTimer poll = timer(TimerKind.POLL);
    t = poll.atNanos();
    last = s.step(new Input.TimerFired(TimerKind.POLL, poll.seq()), t);
    t += 1 * MS;
    last = s.step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("me", LEASE, 23, 23), 24), t);
    assertEquals(ElectorState.FOLLOWER, s.role());
    assertEquals(LEASE, only(Command.Revoke.class).leaseId(), "the key goes with the revoked lease");
    assertEquals(0, s.leaseId());
    assertFalse(published().contains(Cause.LEADER_CHANGED), () -> "reported itself as someone else: " + last);
  }

  @Test
  void aCampaignWithUnknownOutcomeThatWasAppliedIsNotReportedAsAnotherLeader() {
    campaignWithFreshLease();
    step(new Input.CampaignFailed(only(Command.Campaign.class).op(), "timed out"));
    Command.SetTimer poll = timer(TimerKind.POLL);
    now = poll.atNanos();
    step(new Input.TimerFired(TimerKind.POLL, poll.seq()));
    // The transaction was applied after all, and the revocation not yet: K is bound to the
    // lease we just gave up. That is nobody's term, least of all a leader named "me".
    step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("me", LEASE, 11, 11), 11));
    assertFalse(published().contains(Cause.LEADER_CHANGED), () -> "published " + last);
    assertEquals(null, m.leader());
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  @Test
  void aCampaignCommittedTooLateIsNotReportedAsAnotherLeader() {
    campaignWithFreshLease();
    long campaignOp = only(Command.Campaign.class).op();
    now += WINDOW; // the reply comes after the lease's local deadline
    step(new Input.CampaignWon(campaignOp, 11));
    assertEquals(LEASE, only(Command.Revoke.class).leaseId());
    step(new Input.PollResult(only(Command.Poll.class).op(), new KeyRecord("me", LEASE, 11, 11), 11));
    assertFalse(published().contains(Cause.LEADER_CHANGED), () -> "published " + last);
    assertEquals(null, m.leader());
  }

  @Test
  void noFollowerEventComesBeforeThePendingLossOfATerm() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.WatchDelete(watchId, 20));
    long probeOp = only(Command.ProbeLease.class).op();
    // While the loss waits for its cause, the watch fails and the re-read fails too: the
    // listeners still think this instance leads, so no FOLLOWER -> FOLLOWER event may come first.
    step(new Input.WatchFailed(watchId, false, "stream reset"));
    Command.SetTimer rewatch = timer(TimerKind.REWATCH);
    now = rewatch.atNanos();
    step(new Input.TimerFired(TimerKind.REWATCH, rewatch.seq()));
    step(new Input.PollFailed(only(Command.Poll.class).op(), "refused"));
    assertTrue(published().isEmpty(), () -> "published " + last);
    step(new Input.LeaseProbed(probeOp, true, true));
    assertEquals(List.of(Cause.KEY_DELETED), published());
    // The outage is reported after the loss, by the next failure.
    step(new Input.PollFailed(only(Command.Poll.class).op(), "refused"));
    assertEquals(List.of(Cause.ETCD_UNAVAILABLE), published());
  }

  private long watchIdAfterElection() {
    // The first poll (revision 10) opened the watch from revision 11.
    ElectionMachine probe = new ElectionMachine(CONFIG, new SplittableRandom(1));
    probe.step(new Input.Start(), 0);
    List<Command> c = probe.step(new Input.PollResult(1, null, 10), 0);
    return c.stream()
        .filter(Command.Watch.class::isInstance)
        .map(x -> ((Command.Watch) x).watchId())
        .findFirst()
        .orElseThrow();
  }
}
