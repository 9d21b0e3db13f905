package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The cold-start stagger (PROTOCOL.md §4.5): only a candidate's very first campaign waits. */
class ColdStartTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long STAGGER = 100 * MS;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, STAGGER);

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(7));
  private final MachineSteps d = new MachineSteps(m);






  private Command.SetTimer coldStart() {
    d.step(new Input.Start());
    d.step(new EtcdInput.PollResult(d.only(EtcdCommand.Poll.class).op(), null, 10));
    assertFalse(d.has(EtcdCommand.GrantLease.class) || d.has(EtcdCommand.Rank.class), "waits first: " + d.last);
    Command.SetTimer t = d.timer(TimerKind.CAMPAIGN);
    assertTrue(t.atNanos() >= d.now && t.atNanos() < d.now + STAGGER, "within the stagger: " + t);
    d.now = t.atNanos();
    d.step(new Input.TimerFired(t.timer(), t.seq()));
    return t;
  }

  @Test
  void aFirstCampaignWaitsItsShareThenReadsTheKeyAgainBeforeItGrants() {
    coldStart();
    d.step(new EtcdInput.PollResult(d.only(EtcdCommand.Poll.class).op(), null, 11));
    d.only(EtcdCommand.GrantLease.class);
  }

  @Test
  void aCandidateWhoseWaitShowsTheKeyTakenFollowsWithoutAGrantForACampaign() {
    coldStart();
    d.step(new EtcdInput.PollResult(d.only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 11, 11), 11));
    assertEquals("other", m.leader().candidateId());
    assertFalse(d.has(EtcdCommand.Campaign.class), d.last.toString());
  }

  @Test
  void aFailoverAfterALeaderWasSeenDoesNotWait() {
    coldStart();
    d.step(new EtcdInput.PollResult(d.only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 11, 11), 11));
    // The leader goes: the next campaign ranks at once, with no stagger.
    long watch = d.all.stream().filter(EtcdCommand.Watch.class::isInstance).map(EtcdCommand.Watch.class::cast)
        .reduce((a, b) -> b).orElseThrow().watchId();
    d.step(new EtcdInput.WatchDelete(watch, 12));
    assertTrue(d.has(EtcdCommand.Rank.class) || d.has(EtcdCommand.GrantLease.class)
        || d.has(EtcdCommand.Campaign.class), "acts at once: " + d.last);
    for (Command c : d.last) {
      assertFalse(c instanceof Command.SetTimer t && t.timer() == TimerKind.CAMPAIGN && t.atNanos() > d.now,
          "no wait: " + d.last);
    }
  }
}
