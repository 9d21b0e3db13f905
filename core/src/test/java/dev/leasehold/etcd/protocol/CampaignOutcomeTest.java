package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What a campaign that did not plainly win leaves behind: a lost compare-and-swap, one whose
 * outcome is unknown, one committed too close to (or after) the lease's local deadline. In each
 * the lease is revoked, no term is published, and a key that the transaction bound after all is
 * nobody's term, not another leader's.
 */
class CampaignOutcomeTest {
  // TTL 3 s, margin 300 ms, drift 1 %: window = 3 s × 0.99 − 0.3 s = 2.67 s.
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, false);
  private static final long WINDOW = 2_670 * MS;
  private static final long LEASE = 77;

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private final MachineSteps s = new MachineSteps(m);

  /** Drives a fresh machine to its first CAS: the key is absent and a lease was granted. */
  private void campaignWithFreshLease() {
    s.step(new Input.Start());
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), null, 10));
    s.step(new EtcdInput.LeaseGranted(s.only(EtcdCommand.GrantLease.class).op(), LEASE, 3));
  }

  @Test
  void lostCompareAndSwapRevokesTheUnusedLeaseAndKnowsTheLeader() {
    campaignWithFreshLease();
    s.step(new EtcdInput.CampaignLost(s.only(EtcdCommand.Campaign.class).op(), new KeyRecord("other", 5, 12, 12), 12));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, s.only(Command.Release.class).leaseId());
    assertEquals("other", m.leader().candidateId());
  }

  @Test
  void campaignWithUnknownOutcomeRevokesTheLeaseSoNoKeyIsLeftBehind() {
    campaignWithFreshLease();
    s.step(new EtcdInput.CampaignFailed(s.only(EtcdCommand.Campaign.class).op(), "timed out"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(LEASE, s.only(Command.Release.class).leaseId());
    assertTrue(s.published().isEmpty(), "one failed call is not yet an outage");
  }

  @Test
  void commitTooCloseToTheDeadlineIsNotLeadership() {
    s.step(new Input.Start());
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), null, 10));
    long grantOp = s.only(EtcdCommand.GrantLease.class).op();
    s.now += WINDOW; // the grant and the transaction together took the whole window
    s.step(new EtcdInput.LeaseGranted(grantOp, LEASE, 3));
    s.step(new EtcdInput.CampaignWon(s.only(EtcdCommand.Campaign.class).op(), 11));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertTrue(s.published().isEmpty());
    assertEquals(LEASE, s.only(Command.Release.class).leaseId());
  }

  @Test
  void aCampaignWithUnknownOutcomeThatWasAppliedIsNotReportedAsAnotherLeader() {
    campaignWithFreshLease();
    s.step(new EtcdInput.CampaignFailed(s.only(EtcdCommand.Campaign.class).op(), "timed out"));
    s.fire(s.timer(TimerKind.POLL));
    // The transaction was applied after all, and the revocation not yet: K is bound to the
    // lease we just gave up. That is nobody's term, least of all a leader named "me".
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), new KeyRecord("me", LEASE, 11, 11), 11));
    assertFalse(s.published().contains(Cause.LEADER_CHANGED), () -> "published " + s.last);
    assertNull(m.leader());
    assertEquals(ElectorState.FOLLOWER, m.role());
  }

  @Test
  void aCampaignCommittedTooLateIsNotReportedAsAnotherLeader() {
    campaignWithFreshLease();
    long campaignOp = s.only(EtcdCommand.Campaign.class).op();
    s.now += WINDOW; // the reply comes after the lease's local deadline
    s.step(new EtcdInput.CampaignWon(campaignOp, 11));
    assertEquals(LEASE, s.only(Command.Release.class).leaseId());
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), new KeyRecord("me", LEASE, 11, 11), 11));
    assertFalse(s.published().contains(Cause.LEADER_CHANGED), () -> "published " + s.last);
    assertNull(m.leader());
  }
}
