package dev.leasehold.etcd.protocol;

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
  private static final long LEASE = 77;
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

  private List<Cause> published() {
    return last.stream().filter(Command.Publish.class::isInstance)
        .map(c -> ((Command.Publish) c).cause()).collect(Collectors.toList());
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
    assertEquals(6, MasterTerm.token(m));
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

  /**
   * A standby follower's renewal read that etcd served before the follower's own
   * compare-and-swap, and that arrives after CampaignWon, shows the key as it was before this
   * term began (absent, or the previous holder's). It must not unseat the new MASTER; it still
   * confirms the renewal. Found by the protocol-spec simulation (seed 109440 of SimulationTest):
   * the new MASTER published KEY_DELETED 4 ms after ELECTED on a healthy network.
   */
  @Test
  void standbyRenewalReadServedBeforeOurCompareAndSwapDoesNotUnseatTheNewMaster() {
    KeyRecord previous = new KeyRecord("other", 5, 12, 12);
    for (KeyRecord staleView : new KeyRecord[] {null, previous}) {
      ElectionMachine s = new ElectionMachine(CONFIG, new SplittableRandom(1));
      long t = 1_000 * S;
      last = s.step(new Input.Start(), t);
      last = s.step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), previous, 13), t);
      long watch = only(EtcdCommand.Watch.class).watchId();
      long grantSent = t;
      long grantOp = only(EtcdCommand.GrantLease.class).op();
      t += 2 * MS;
      last = s.step(new EtcdInput.LeaseGranted(grantOp, LEASE, 3), t);
      Command.SetTimer renew = timer(TimerKind.RENEW);
      t = renew.atNanos();
      last = s.step(new Input.TimerFired(TimerKind.RENEW, renew.seq()), t);
      long renewSent = t;
      t += 1 * MS;
      last = s.step(new EtcdInput.KeepAliveAcked(only(EtcdCommand.KeepAlive.class).op(), 3, 5), t);
      long readOp = only(EtcdCommand.ConfirmRead.class).op();
      // While that read is in flight, the holder's key goes and the standby lease wins the CAS.
      t += 1 * MS;
      last = AtHead.answer(s, s.step(new EtcdInput.WatchDelete(watch, 20), t), t);
      long campaignOp = only(EtcdCommand.Campaign.class).op();
      t += 1 * MS;
      last = s.step(new EtcdInput.CampaignWon(campaignOp, 21), t);
      assertEquals(ElectorState.MASTER, s.role());
      assertEquals(grantSent + WINDOW, s.deadline());
      // The read was served at revision 19 or 20, before our key was created at 21.
      t += 1 * MS;
      last = s.step(new EtcdInput.ConfirmRead(readOp, staleView, staleView == null ? 20 : 19, 5), t);
      assertEquals(ElectorState.MASTER, s.role(), () -> "stale view " + staleView + " unseated the MASTER: " + last);
      assertTrue(published().isEmpty(), () -> "published " + published());
      assertFalse(has(EtcdCommand.ProbeLease.class));
      assertFalse(has(Command.Release.class));
      assertEquals(renewSent + WINDOW, s.deadline(), "the renewal it confirms still counts");
    }
  }

  /**
   * A CAS of ours that we saw lose (CampaignLost) can still be applied later when the client
   * library retried it and the other copy reaches etcd after the key was freed: the key is then
   * bound to the lease we keep as a standby while we follow. Renewing that lease without leading
   * would keep every other candidate out for good (found by the protocol-spec simulation, seed
   * 892503 of SimulationTest). The key is ours, like a key handed to the standby lease: the
   * follower adopts it (PROTOCOL.md §4.5).
   */
  @Test
  void followerThatFindsTheKeyBoundToItsStandbyLeaseAdoptsIt() {
    ElectionMachine s = new ElectionMachine(CONFIG, new SplittableRandom(1));
    long t = 1_000 * S;
    last = s.step(new Input.Start(), t);
    last = s.step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 12, 12), 13), t);
    long watch = only(EtcdCommand.Watch.class).watchId();
    long grantOp = only(EtcdCommand.GrantLease.class).op();
    t += 2 * MS;
    last = s.step(new EtcdInput.LeaseGranted(grantOp, LEASE, 3), t);
    t += 1 * MS;
    last = AtHead.answer(s, s.step(new EtcdInput.WatchDelete(watch, 20), t), t);
    long campaignOp = only(EtcdCommand.Campaign.class).op();
    t += 1 * MS;
    last = s.step(new EtcdInput.CampaignLost(campaignOp, new KeyRecord("third", 6, 21, 21), 21), t);
    assertEquals(ElectorState.FOLLOWER, s.role());
    assertEquals(LEASE, s.leaseId(), "the lost CAS's lease is kept as a standby");
    // "third" goes; a late copy of our CAS binds the key to our standby lease (revision 23).
    assertFalse(has(Command.SetTimer.class) && last.stream().anyMatch(
        c -> c instanceof Command.SetTimer x && x.timer() == TimerKind.POLL),
        "with a standby lease, its renewals' reads are the poll");
    t += 100 * MS;
    last = s.step(new EtcdInput.WatchPut(watch, new KeyRecord("me", LEASE, 23, 23), 23), t);
    // The key is this instance's (PROTOCOL.md §4.5): it leads with it, token = its mod revision.
    assertEquals(ElectorState.MASTER, s.role());
    assertEquals(23, MasterTerm.token(s));
    assertEquals(LEASE, s.leaseId());
    assertFalse(published().contains(Cause.LEADER_CHANGED), () -> "reported itself as someone else: " + last);
  }
}
