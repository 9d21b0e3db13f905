package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.ElectorState;
import dev.leasehold.Participant;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;

/**
 * MasterFixture drives an {@link ElectionMachine} with standby leases to MASTER on lease {@link
 * #OWN} with token 11, its term's read of the queue showing the given participants, and keeps the
 * id of its open watch; for the tests of the MASTER's queue moves (preemption, transfer, yield).
 * Not thread-safe.
 */
final class MasterFixture {
  static final long OWN = 77;

  final ElectionMachine m;
  final MachineSteps s;
  long watchId;

  MasterFixture(ProtocolConfig config) {
    this.m = new ElectionMachine(config, new SplittableRandom(1));
    this.s = new MachineSteps(m);
  }

  /** step applies {@code in} and notes the id of a watch it opened. */
  void step(Input in) {
    s.step(in);
    s.last.stream().filter(EtcdCommand.Watch.class::isInstance)
        .forEach(w -> watchId = ((EtcdCommand.Watch) w).watchId());
  }

  /** master makes a cold candidate win its campaign; the term's read of the queue shows {@code queued}. */
  void master(Participant... queued) {
    step(new Input.Start());
    step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), null, 4));
    step(new EtcdInput.Ranked(s.only(EtcdCommand.Rank.class).op(), 0, 4));
    step(new EtcdInput.LeaseGranted(s.only(EtcdCommand.GrantLease.class).op(), OWN, 3));
    step(new EtcdInput.CampaignWon(s.only(EtcdCommand.Campaign.class).op(), 11));
    assertEquals(ElectorState.MASTER, m.role());
    step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), new KeyRecord("me", OWN, 11, 11), 11,
        List.of(queued)));
  }
}
