package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Yield when unhealthy (PROTOCOL.md §4.5) on the pure machine, with no store: an unhealthy
 * MASTER hands its term to the queue's head (cause UNHEALTHY) and then leaves the queue, or keeps
 * its term until someone is queued; an unhealthy FOLLOWER releases its standby lease and does not
 * campaign for a free key; healthy again, it reads the key and campaigns.
 */
class HealthYieldTest {
  private static final long OWN = MasterFixture.OWN;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, 0, -1);

  private final MasterFixture f = new MasterFixture(CONFIG);
  private final ElectionMachine m = f.m;
  private final MachineSteps s = f.s;

  @Test
  void anUnhealthyLeaderHandsOverToTheHeadThenLeavesTheQueue() {
    Participant next = new Participant("next", 91, 13, 13, 0);
    f.master(next);
    f.step(new Input.HealthChanged(false, "the pool is broken"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(List.of(Cause.UNHEALTHY), s.published());
    EtcdCommand.Handover h = s.only(EtcdCommand.Handover.class);
    assertEquals(next, h.successor());
    assertFalse(s.has(Command.Release.class), "the handover needs the lease until it is answered");
    f.step(new EtcdInput.HandedOver(h.op(), 20));
    assertTrue(s.has(Command.Release.class), "then it leaves the queue: " + s.last);
  }

  @Test
  void anUnhealthyLeaderWithNobodyQueuedKeepsItsTermUntilSomeoneEnlists() {
    f.master();
    f.step(new Input.HealthChanged(false, "the pool is broken"));
    assertEquals(ElectorState.MASTER, m.role(), "nobody to yield to: it keeps the term");
    Participant late = new Participant("late", 92, 14, 14, 0);
    f.step(new EtcdInput.WatchEnlisted(f.watchId, late, 14));
    assertEquals(ElectorState.FOLLOWER, m.role());
    assertEquals(late, s.only(EtcdCommand.Handover.class).successor());
  }

  @Test
  void aHealthyAgainLeaderDoesNotYield() {
    f.master();
    f.step(new Input.HealthChanged(false, "flap"));
    f.step(new Input.HealthChanged(true, ""));
    f.step(new EtcdInput.WatchEnlisted(f.watchId, new Participant("late", 92, 14, 14, 0), 14));
    assertEquals(ElectorState.MASTER, m.role());
  }

  @Test
  void anUnhealthyFollowerReleasesItsStandbyLeaseAndDoesNotCampaignUntilHealthy() {
    f.step(new Input.Start());
    f.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 3, 3), 3));
    long grant = s.only(EtcdCommand.GrantLease.class).op();
    f.step(new EtcdInput.LeaseGranted(grant, OWN, 3));
    f.step(new Input.HealthChanged(false, "disk full"));
    assertEquals(new Command.Release(OWN, 3), s.only(Command.Release.class));
    f.step(new EtcdInput.WatchDelete(f.watchId, 9));
    assertFalse(s.has(EtcdCommand.Campaign.class), "no campaign while unhealthy: " + s.last);
    assertFalse(s.has(EtcdCommand.GrantLease.class), "no lease either: " + s.last);
    assertFalse(s.has(EtcdCommand.Rank.class), s.last.toString());
    f.step(new Input.HealthChanged(true, ""));
    EtcdCommand.Poll read = s.only(EtcdCommand.Poll.class);
    f.step(new EtcdInput.PollResult(read.op(), null, 9));
    assertTrue(s.has(EtcdCommand.GrantLease.class) || s.has(EtcdCommand.Rank.class)
        || s.has(EtcdCommand.Campaign.class), "back in the election: " + s.last);
  }
}
