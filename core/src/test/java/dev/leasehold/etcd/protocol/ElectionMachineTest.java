package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

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
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** Drives a fresh machine to MASTER; returns the grant's send time. */
  private long elect(long createRevision) {
    step(new Input.Start());
    long pollOp = only(EtcdCommand.Poll.class).op();
    step(new EtcdInput.PollResult(pollOp, null, 10));
    long grantSent = now;
    long grantOp = only(EtcdCommand.GrantLease.class).op();
    assertEquals(ElectorState.CANDIDATE, m.role());
    now += 5 * MS;
    step(new EtcdInput.LeaseGranted(grantOp, LEASE, 3));
    long campaignOp = only(EtcdCommand.Campaign.class).op();
    now += 5 * MS;
    step(new EtcdInput.CampaignWon(campaignOp, createRevision));
    assertEquals(ElectorState.MASTER, m.role());
    return grantSent;
  }

  @Test
  void followerCampaignsWhenTheKeyIsAbsentAndWinsTheCompareAndSwap() {
    long grantSent = elect(11);
    assertEquals(List.of(Cause.ELECTED), published());
    assertEquals(11, MasterTerm.token(m));
    assertEquals(grantSent + WINDOW, m.deadline());
    assertEquals(grantSent + WINDOW, timer(TimerKind.DEADLINE).atNanos());
    assertEquals(grantSent + WINDOW - 2 * S, timer(TimerKind.RENEW).atNanos(),
        "a MASTER renews as late as leaves 2 s of its window (at TTL 3 s: 670 ms)");
  }

  @Test
  void masterStepsDownAtItsLocalDeadlineWhenNoRenewalIsConfirmed() {
    long grantSent = elect(11);
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    now = grantSent + WINDOW;
    step(new Input.TimerFired(TimerKind.DEADLINE, deadline.seq()));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEASE_EXPIRED_LOCALLY), published());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
  }

  @Test
  void renewalExtendsTheDeadlineFromTheKeepAliveSendTimeNotTheReplyTime() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    long sentAt = now;
    long kaOp = only(EtcdCommand.KeepAlive.class).op();
    now += 400 * MS; // a slow reply
    step(new EtcdInput.KeepAliveAcked(kaOp, 3, 5));
    long readOp = only(EtcdCommand.ConfirmRead.class).op();
    now += 10 * MS;
    step(new EtcdInput.ConfirmRead(readOp, new KeyRecord("me", LEASE, 11, 11), 12, 5));
    assertEquals(sentAt + WINDOW, m.deadline());
    assertEquals(sentAt + WINDOW, timer(TimerKind.DEADLINE).atNanos());
  }

  @Test
  void keepAliveAckAloneDoesNotExtendTheDeadline() {
    long grantSent = elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 5));
    assertEquals(grantSent + WINDOW, m.deadline());
    step(new EtcdInput.ConfirmFailed(only(EtcdCommand.ConfirmRead.class).op(), "timed out"));
    assertEquals(grantSent + WINDOW, m.deadline());
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void ackFromAnotherRaftTermDoesNotConfirmTheRenewal() {
    long grantSent = elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 4));
    // A deposed etcd leader (term 4) acked; the read is served by the term-5 leader.
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), new KeyRecord("me", LEASE, 11, 11), 12, 5));
    assertEquals(grantSent + WINDOW, m.deadline());
    assertTrue(timer(TimerKind.RENEW).atNanos() - now <= 100 * MS, "renews again soon");
  }

  @Test
  void keepAliveReportingTheLeaseGoneStepsDownWithLeaseRevoked() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveFailed(only(EtcdCommand.KeepAlive.class).op(), true, "lease not found"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEASE_REVOKED), published());
    assertFalse(has(Command.Release.class));
  }

  @Test
  void keyDeletedWhileLeaseAliveStepsDownAtOnceAndReportsKeyDeleted() {
    elect(11);
    step(new Input.Start()); // no-op, but keeps the harness honest about idempotent start
    long watchId = watchIdAfterElection();
    step(new EtcdInput.WatchDelete(watchId, 20));
    assertEquals(ElectorState.FOLLOWER, m.role(), "steps down before knowing why");
    assertTrue(published().isEmpty());
    EtcdCommand.ProbeLease probe = only(EtcdCommand.ProbeLease.class);
    step(new EtcdInput.LeaseProbed(probe.op(), true, true));
    assertEquals(List.of(Cause.KEY_DELETED), published());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
  }

  @Test
  void keyDeletedWithItsLeaseReportsLeaseRevoked() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new EtcdInput.WatchDelete(watchId, 20));
    step(new EtcdInput.LeaseProbed(only(EtcdCommand.ProbeLease.class).op(), true, false));
    assertEquals(List.of(Cause.LEASE_REVOKED), published());
  }

  @Test
  void keyBoundToAnotherLeaseWithTheSameCandidateIdIsTakenNotOurs() {
    elect(11);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 5));
    // Same value "me", but another lease and create revision: another process with our id.
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), new KeyRecord("me", 99, 15, 15), 16, 5));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.KEY_TAKEN), published());
  }

  @Test
  void followerSeeingItsOwnCandidateIdOnAnotherLeaseStaysFollower() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("me", 99, 15, 15), 16));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    assertEquals(15, m.leader().fencingToken());
  }

  @Test
  void unavailabilityIsReportedOncePerOutageNotPerRetry() {
    step(new Input.Start());
    int reports = 0;
    for (int i = 0; i < 10; i++) {
      step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
      reports += published().size();
      Command.SetTimer t = timer(TimerKind.POLL);
      assertTrue(t.atNanos() - now <= CONFIG.backoffMaxNanos(), "backoff is capped");
      now = t.atNanos();
      step(new Input.TimerFired(TimerKind.POLL, t.seq()));
    }
    assertEquals(1, reports);
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("x", 5, 3, 3), 4));
    assertEquals(List.of(Cause.STORE_RECOVERED, Cause.LEADER_CHANGED), published());
  }

  @Test
  void resignRevokesAndSitsOutTheNextElection() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.Resign());
    assertEquals(List.of(Cause.RESIGNED), published());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
    long pollOp = only(EtcdCommand.Poll.class).op();
    long resignedAt = now;
    now += 2 * MS;
    step(new EtcdInput.WatchDelete(watchId, 20));
    assertFalse(has(EtcdCommand.GrantLease.class), "a resigned instance does not campaign at once");
    // The delete acts without waiting for the read in flight: it reads again when the hold-off ends.
    assertEquals(resignedAt + 3 * S, timer(TimerKind.POLL).atNanos());
    // The read sent at resign time was served before the revocation; its reply is dropped.
    step(new EtcdInput.PollResult(pollOp, new KeyRecord("me", LEASE, 11, 11), 15));
    assertTrue(last.isEmpty(), "the dropped read's reply does nothing: " + last);
    assertTrue(published().isEmpty(), "its own abandoned key is not reported as a leader");
  }

  @Test
  void aWatchDeleteStartsTheCampaignWhileAPollIsInFlight() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    long watchId = only(EtcdCommand.Watch.class).watchId();
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
    step(new EtcdInput.CampaignLost(only(EtcdCommand.Campaign.class).op(), new KeyRecord("other", 5, 11, 11), 11));
    assertEquals(ElectorState.FOLLOWER, m.role());
    now += S;
    step(new Input.TimerFired(TimerKind.POLL, timer(TimerKind.POLL).seq()));
    long pollOp = only(EtcdCommand.Poll.class).op();
    step(new EtcdInput.WatchDelete(watchId, 12));
    assertEquals(ElectorState.CANDIDATE, m.role(), "the delete is acted on at once, not after the read");
    assertTrue(has(EtcdCommand.Campaign.class) || has(EtcdCommand.GrantLease.class), "campaigns: " + last);
    step(new EtcdInput.PollResult(pollOp, new KeyRecord("other", 5, 11, 11), 11));
    assertEquals(ElectorState.CANDIDATE, m.role(), "the dropped read's reply changes nothing");
  }

  @Test
  void aStalledWorkResignIsTheSameStepLabelledWorkStalled() {
    elect(11);
    step(new Input.Resign(Cause.WORK_STALLED));
    assertEquals(List.of(Cause.WORK_STALLED), published());
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
  }

  @Test
  void holdOffEndsOnceAnotherCandidateHasTakenOver() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new Input.Resign());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 20));
    assertFalse(has(EtcdCommand.GrantLease.class));
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("other", 5, 21, 21), 21));
    assertEquals(List.of(Cause.LEADER_CHANGED), published());
    // The new leader resigns at once: the instance that resigned earlier may take over now.
    now += 10 * MS;
    step(new EtcdInput.WatchDelete(watchId, 22));
    assertEquals(ElectorState.CANDIDATE, m.role());
    assertTrue(has(EtcdCommand.GrantLease.class));
  }

  @Test
  void closeRevokesTheLeaseAndEndsTheTermWithClosed() {
    elect(11);
    step(new Input.Close());
    assertEquals(ElectorState.STOPPED, m.role());
    assertEquals(List.of(Cause.CLOSED), published());
    Command.Publish p = only(Command.Publish.class);
    assertEquals(ElectorState.MASTER, p.from());
    assertEquals(LEASE, only(Command.Release.class).leaseId());
  }

  @Test
  void grantArrivingAfterCloseIsRevoked() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    long grantOp = only(EtcdCommand.GrantLease.class).op();
    step(new Input.Close());
    step(new EtcdInput.LeaseGranted(grantOp, 123, 3));
    assertEquals(123, only(Command.Release.class).leaseId());
  }

  @Test
  void staleResultsAreIgnored() {
    elect(11);
    List<Command> out = step(new EtcdInput.KeepAliveAcked(9999, 3, 5));
    assertTrue(out.isEmpty());
    out = step(new Input.TimerFired(TimerKind.DEADLINE, 9999));
    assertTrue(out.isEmpty());
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void masterIgnoresTheWatchEventOfItsOwnPut() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("me", LEASE, 11, 11), 11));
    assertEquals(ElectorState.MASTER, m.role());
    step(new EtcdInput.WatchPut(watchId, new KeyRecord("op", 0, 11, 30), 30));
    assertEquals(ElectorState.FOLLOWER, m.role(), "an operator rebinding the key takes it");
    assertEquals(List.of(Cause.KEY_TAKEN), published());
  }

  @Test
  void tokensOfLaterTermsAreLarger() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new EtcdInput.WatchDelete(watchId, 20));
    step(new EtcdInput.LeaseProbed(only(EtcdCommand.ProbeLease.class).op(), true, false));
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 20));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), 88, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 21));
    assertEquals(21, MasterTerm.token(m));
    assertNotEquals(LEASE, m.leaseId());
  }

  @Test
  void noFollowerEventComesBeforeThePendingLossOfATerm() {
    elect(11);
    long watchId = watchIdAfterElection();
    step(new EtcdInput.WatchDelete(watchId, 20));
    long probeOp = only(EtcdCommand.ProbeLease.class).op();
    // While the loss waits for its cause, the watch fails and the re-read fails too: the
    // listeners still think this instance leads, so no FOLLOWER -> FOLLOWER event may come first.
    step(new EtcdInput.WatchFailed(watchId, false, "stream reset"));
    Command.SetTimer rewatch = timer(TimerKind.REWATCH);
    now = rewatch.atNanos();
    step(new Input.TimerFired(TimerKind.REWATCH, rewatch.seq()));
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
    assertTrue(published().isEmpty(), () -> "published " + last);
    step(new EtcdInput.LeaseProbed(probeOp, true, true));
    assertEquals(List.of(Cause.KEY_DELETED), published());
    // The outage is reported after the loss, once it lasts: by the third failure in a row.
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
    assertTrue(published().isEmpty(), () -> "published " + last);
    Command.SetTimer poll = timer(TimerKind.POLL);
    now = poll.atNanos();
    step(new Input.TimerFired(TimerKind.POLL, poll.seq()));
    step(new EtcdInput.PollFailed(only(EtcdCommand.Poll.class).op(), "refused"));
    assertEquals(List.of(Cause.STORE_UNAVAILABLE), published());
  }

  private long watchIdAfterElection() {
    // The first poll (revision 10) opened the watch from revision 11.
    ElectionMachine probe = new ElectionMachine(CONFIG, new SplittableRandom(1));
    probe.step(new Input.Start(), 0);
    List<Command> c = probe.step(new EtcdInput.PollResult(1, null, 10), 0);
    return c.stream()
        .filter(EtcdCommand.Watch.class::isInstance)
        .map(x -> ((EtcdCommand.Watch) x).watchId())
        .findFirst()
        .orElseThrow();
  }
}
