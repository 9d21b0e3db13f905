package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The cold campaign (PROTOCOL.md §4.5): a candidate that starts with standby leases on grants a
 * lease and campaigns without reading the key first, both calls waiting as long as the lease can
 * serve; the campaign's Else branch enlists it, so a loser is queued and knows the holder after
 * two calls, with no read or enlistment of its own.
 */
class ColdCampaignTest {
  // TTL 5 s, margin 500 ms, drift 1 %: window = 5 s × 0.99 − 0.5 s = 4.45 s.
  private static final long WINDOW = 4_450 * MS;
  private static final long RPC = 1 * S;
  private static final long LEASE = 77;

  private static ProtocolConfig config(boolean cold) {
    return new ProtocolConfig("me", 5, 500 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 5 * S, true, 0, -1, cold);
  }

  private final ElectionMachine m = new ElectionMachine(config(true), new SplittableRandom(1));
  private final MachineSteps s = new MachineSteps(m);

  private EtcdCommand.Campaign startAndGrant() {
    s.step(new Input.Start());
    long grantSentAt = s.now;
    EtcdCommand.GrantLease g = s.only(EtcdCommand.GrantLease.class);
    s.now += 300 * MS; // a herd answers late
    s.step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    EtcdCommand.Campaign c = s.only(EtcdCommand.Campaign.class);
    assertEquals(grantSentAt + WINDOW - s.now, c.waitNanos(), "the campaign waits until the lease's deadline");
    return c;
  }

  @Test
  void aStartingCandidateGrantsAndCampaignsWithoutAReadEachCallWaitingAsLongAsItsLeaseServes() {
    s.step(new Input.Start());
    assertEquals(ElectorState.CANDIDATE, m.role());
    assertFalse(s.has(EtcdCommand.Poll.class), "no read first: " + s.last);
    EtcdCommand.GrantLease g = s.only(EtcdCommand.GrantLease.class);
    assertEquals(WINDOW - 5 * S / 6, g.waitNanos(), "the grant waits as long as its lease could still campaign");
    assertEquals(WINDOW - 5 * S / 6, g.timeoutNanos(RPC));
    assertTrue(s.published().isEmpty(), "FOLLOWER to CANDIDATE is silent");

    EtcdCommand.Campaign c = startAndGrantAgainOn(g);
    assertTrue(c.enlist(), "a candidate with no participant key enlists in the Else branch");
    assertEquals(LEASE, c.leaseId());
  }

  private EtcdCommand.Campaign startAndGrantAgainOn(EtcdCommand.GrantLease g) {
    s.step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    return s.only(EtcdCommand.Campaign.class);
  }

  @Test
  void aWonColdCampaignLeadsAndReadsTheQueueAndWatches() {
    EtcdCommand.Campaign c = startAndGrant();
    s.step(new EtcdInput.CampaignWon(c.op(), 12));
    assertEquals(ElectorState.MASTER, m.role());
    assertEquals(12, m.leader().fencingToken());
    assertEquals(java.util.List.of(Cause.ELECTED), s.published());
    assertTrue(s.only(EtcdCommand.Poll.class).participants(), "the MASTER reads the queue");
    assertTrue(s.only(EtcdCommand.Watch.class).queue(), "and watches it");
  }

  @Test
  void aLostColdCampaignIsQueuedKnowsTheHolderAndWatchesWithoutAnotherCall() {
    EtcdCommand.Campaign c = startAndGrant();
    s.step(new EtcdInput.CampaignLost(c.op(), new KeyRecord("other", 500, 12, 12), 13, true));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals("other", m.leader().candidateId());
    assertFalse(s.has(Command.Release.class), "the lease stays, as a standby lease: " + s.last);
    assertFalse(s.has(EtcdCommand.Enlist.class), "the campaign enlisted it: " + s.last);
    assertFalse(s.has(EtcdCommand.Poll.class), "the standby renewals are its reads: " + s.last);
    assertEquals(14, s.only(EtcdCommand.Watch.class).fromRevision(), "the watch opens after the campaign's revision");

    // The key goes before a standby renewal counted those ahead: a higher priority may have
    // enlisted since, so it counts now, on its participant key, as after an Enlist.
    long watchId = s.only(EtcdCommand.Watch.class).watchId();
    s.step(new EtcdInput.WatchDelete(watchId, 20));
    assertEquals(LEASE, s.only(EtcdCommand.Rank.class).leaseId());
  }

  @Test
  void aLateColdWinLeadsWithWhatIsLeftAndRenewsAtOnce() {
    s.step(new Input.Start());
    long grantSentAt = s.now;
    EtcdCommand.GrantLease g = s.only(EtcdCommand.GrantLease.class);
    s.now += 3_400 * MS; // a herd's late answer, within the grant's wait
    s.step(new EtcdInput.LeaseGranted(g.op(), LEASE, 5));
    EtcdCommand.Campaign c = s.only(EtcdCommand.Campaign.class);
    assertEquals(WINDOW - 3_400 * MS, c.waitNanos(), "the campaign may wait until the lease's deadline");

    s.now = grantSentAt + WINDOW - 150 * MS;
    s.step(new EtcdInput.CampaignWon(c.op(), 12));
    assertEquals(ElectorState.MASTER, m.role(), "a win before the deadline is a term, however short");
    assertEquals(150 * MS, m.deadline() - s.now);
    assertEquals(s.now, s.timer(TimerKind.RENEW).atNanos(), "its first renewal is due at once");
  }

  @Test
  void aColdGrantThatFailsFallsBackToReadingTheKey() {
    s.step(new Input.Start());
    s.step(new EtcdInput.GrantFailed(s.only(EtcdCommand.GrantLease.class).op(), "timed out"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    s.fire(s.timer(TimerKind.POLL));
    assertFalse(s.only(EtcdCommand.Poll.class).participants());
  }

  @Test
  void aColdCampaignWithUnknownOutcomeReleasesItsLeaseAndReadsLater() {
    EtcdCommand.Campaign c = startAndGrant();
    s.step(new EtcdInput.CampaignFailed(c.op(), "timed out"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, s.only(Command.Release.class).leaseId());
    s.fire(s.timer(TimerKind.POLL));
    s.only(EtcdCommand.Poll.class);
  }

  @Test
  void aLaterCampaignOnAFreshGrantEnlistsButWaitsOnlyTheRpcTimeout() {
    EtcdCommand.Campaign c = startAndGrant();
    s.step(new EtcdInput.CampaignFailed(c.op(), "timed out"));
    s.fire(s.timer(TimerKind.POLL));
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), null, 30));
    s.step(new EtcdInput.Ranked(s.only(EtcdCommand.Rank.class).op(), 0, 30));
    EtcdCommand.GrantLease g = s.only(EtcdCommand.GrantLease.class);
    assertEquals(RPC, g.timeoutNanos(RPC), "only the cold campaign's calls wait longer");
    s.step(new EtcdInput.LeaseGranted(g.op(), 88, 5));
    EtcdCommand.Campaign again = s.only(EtcdCommand.Campaign.class);
    assertTrue(again.enlist());
    assertEquals(RPC, again.timeoutNanos(RPC));
  }

  @Test
  void withoutTheColdCampaignAStartingCandidateReadsFirst() {
    ElectionMachine readFirst = new ElectionMachine(config(false), new SplittableRandom(1));
    MachineSteps r = new MachineSteps(readFirst);
    r.step(new Input.Start());
    r.only(EtcdCommand.Poll.class);
    assertFalse(r.has(EtcdCommand.GrantLease.class));
  }
}
