package dev.leasehold.protocol;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StandbyLeaseTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true);
  private static final long WINDOW = 2_670 * MS;
  // A MASTER renews as late as leaves 2 s of its window: at TTL 3 s, 670 ms (TTL/6 to TTL/2).
  private static final long MASTER_EVERY = WINDOW - 2 * S;
  private static final KeyRecord OTHER = new KeyRecord("other", 5, 3, 3);

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private long now = 50 * S;
  private List<Command> last;
  private long watchId;

  private void step(Input in) {
    last = AtHead.answer(m, m.step(in, now), now);
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

  private Command.SetTimer timer(TimerKind kind) {
    return last.stream()
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** A follower that sees another leader and takes a standby lease; returns the grant send time. */
  private long followerWithStandby() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), OTHER, 4));
    long sent = now;
    long op = only(EtcdCommand.GrantLease.class).op();
    assertEquals(ElectorState.FOLLOWER, m.role());
    now += 3 * MS;
    step(new EtcdInput.LeaseGranted(op, 77, 3));
    assertEquals(77, m.leaseId());
    assertEquals(sent + WINDOW, m.deadline());
    return sent;
  }

  /** Runs one renewal of the held lease, confirmed in the same raft term. */
  private long renewOnce(KeyRecord seen) {
    return renewOnce(timer(TimerKind.RENEW), seen);
  }

  private long renewOnce(Command.SetTimer renew, KeyRecord seen) {
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    long sent = now;
    now += 2 * MS;
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 7));
    now += 1 * MS;
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), seen, 9, 7));
    return sent;
  }

  @Test
  void followerWithAConfirmedStandbyLeaseTakesOverWithOneTransaction() {
    followerWithStandby();
    long confirmed = renewOnce(OTHER);
    assertEquals(confirmed + WINDOW, m.deadline());
    now += 100 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertEquals(ElectorState.CANDIDATE, m.role());
    assertFalse(has(EtcdCommand.GrantLease.class), "no grant on the takeover path");
    long op = only(EtcdCommand.Campaign.class).op();
    assertEquals(77, only(EtcdCommand.Campaign.class).leaseId());
    now += 2 * MS;
    step(new EtcdInput.CampaignWon(op, 11));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(confirmed + WINDOW, m.deadline(), "the deadline still counts from the confirmed send");
    assertEquals(confirmed + WINDOW, timer(TimerKind.DEADLINE).atNanos());
  }

  /**
   * A standby lease renews every 3·TTL/5 at the default margin (its read is also the follower's
   * poll), the MASTER as late as leaves 2 s of its window (TTL/6 to TTL/2) to ride out an etcd
   * leader election: at TTL 3 s, every 670 ms.
   */
  @Test
  void aStandbyLeaseRenewsEveryThreeFifthsOfTheTtlAndTheMasterLeavingTwoSecondsOfItsWindow() {
    long granted = followerWithStandby();
    assertEquals(granted + 9 * S / 5, timer(TimerKind.RENEW).atNanos(), "standby: 3·TTL/5 after the grant");
    long confirmed = renewOnce(OTHER);
    assertEquals(confirmed + 9 * S / 5, timer(TimerKind.RENEW).atNanos(), "standby: 3·TTL/5 after a renewal");
    now += 100 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    long op = only(EtcdCommand.Campaign.class).op();
    now += 2 * MS;
    step(new EtcdInput.CampaignWon(op, 11));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(confirmed + MASTER_EVERY, timer(TimerKind.RENEW).atNanos(), "MASTER: window - 2 s from the same send");
    long renewed = renewOnce(new KeyRecord("me", 77, 11, 11));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(renewed + WINDOW, m.deadline());
    assertEquals(renewed + MASTER_EVERY, timer(TimerKind.RENEW).atNanos(), "MASTER: window - 2 s after a renewal");
  }

  @Test
  void standbyLeaseThatCouldNotBeConfirmedIsDroppedAtItsDeadlineAndNotUsed() {
    long sent = followerWithStandby();
    Command.SetTimer deadline = timer(TimerKind.DEADLINE);
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 7));
    // The read is served under another raft term: not confirmed.
    step(new EtcdInput.ConfirmRead(only(EtcdCommand.ConfirmRead.class).op(), OTHER, 9, 8));
    assertEquals(sent + WINDOW, m.deadline());
    now = deadline.atNanos();
    step(new Input.TimerFired(TimerKind.DEADLINE, deadline.seq()));
    assertEquals(77, only(Command.Release.class).leaseId());
    assertEquals(0, m.leaseId());
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertTrue(has(EtcdCommand.GrantLease.class), "falls back to granting a fresh lease");
  }

  @Test
  void standbyLeaseTooCloseToItsDeadlineIsReplacedByAFreshGrant() {
    long sent = followerWithStandby();
    now = sent + WINDOW - 400 * MS; // less than TTL/6 (500 ms) left
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertEquals(77, only(Command.Release.class).leaseId());
    assertTrue(has(EtcdCommand.GrantLease.class));
    assertFalse(has(EtcdCommand.Campaign.class));
  }

  @Test
  void lostCompareAndSwapKeepsTheLeaseAsStandby() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 4));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), 77, 3));
    Command.SetTimer renew = timer(TimerKind.RENEW);
    step(new EtcdInput.CampaignLost(only(EtcdCommand.Campaign.class).op(), OTHER, 5));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertFalse(has(Command.Release.class));
    assertEquals(77, m.leaseId());
    long confirmed = renewOnce(renew, OTHER);
    assertEquals(confirmed + WINDOW, m.deadline());
  }

  @Test
  void compareAndSwapThatFindsItsOwnLeaseOnTheKeyHasWon() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 4));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), 77, 3));
    // A retried request: the first attempt created the key with our lease at revision 6.
    step(new EtcdInput.CampaignLost(only(EtcdCommand.Campaign.class).op(), new KeyRecord("me", 77, 6, 6), 6));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(6, m.fencingToken());
    assertEquals(Cause.ELECTED, only(Command.Publish.class).cause());
  }

  @Test
  void standbyGrantInFlightIsUsedForTheCampaign() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), OTHER, 4));
    long standbyOp = only(EtcdCommand.GrantLease.class).op();
    step(new EtcdInput.WatchDelete(watchId, 10));
    assertEquals(ElectorState.CANDIDATE, m.role());
    assertFalse(has(EtcdCommand.GrantLease.class), "no second grant");
    step(new EtcdInput.LeaseGranted(standbyOp, 77, 3));
    assertEquals(77, only(EtcdCommand.Campaign.class).leaseId());
  }

  @Test
  void standbyLeaseReportedGoneIsDroppedWithoutAnEvent() {
    followerWithStandby();
    Command.SetTimer renew = timer(TimerKind.RENEW);
    now = renew.atNanos();
    step(new Input.TimerFired(TimerKind.RENEW, renew.seq()));
    step(new EtcdInput.KeepAliveFailed(only(EtcdCommand.KeepAlive.class).op(), true, "lease not found"));
    assertEquals(0, m.leaseId());
    assertFalse(has(Command.Publish.class));
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  @Test
  void resignedMasterTakesItsNextStandbyLeaseOnlyAfterTheSuccessorIsSeen() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 4));
    step(new EtcdInput.LeaseGranted(only(EtcdCommand.GrantLease.class).op(), 77, 3));
    step(new EtcdInput.CampaignWon(only(EtcdCommand.Campaign.class).op(), 5));
    assertEquals(ElectorState.MASTER, m.role());
    step(new Input.Resign());
    long pollOp = only(EtcdCommand.Poll.class).op();
    // The read still sees the old key (the revocation is not applied yet): no grant now.
    step(new EtcdInput.PollResult(pollOp, new KeyRecord("me", 77, 5, 5), 5));
    assertFalse(has(EtcdCommand.GrantLease.class), "no standby grant while the successor takes over");
    now += 3 * MS;
    step(new EtcdInput.WatchPut(watchId, OTHER_LATER, 8));
    assertTrue(has(EtcdCommand.GrantLease.class), "standby again as soon as the successor is seen");
  }

  private static final KeyRecord OTHER_LATER = new KeyRecord("other", 6, 8, 8);

  @Test
  void closeRevokesTheStandbyLease() {
    followerWithStandby();
    step(new Input.Close());
    assertEquals(77, only(Command.Release.class).leaseId());
  }
}
