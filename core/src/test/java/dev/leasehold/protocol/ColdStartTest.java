package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The cold-start stagger (PROTOCOL.md §4.5): only a candidate's very first campaign waits. */
class ColdStartTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long STAGGER = 100 * MS;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true, STAGGER);

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(7));
  private long now = 1_000 * S;
  private List<Command> last;

  private final List<Command> all = new java.util.ArrayList<>();

  private List<Command> step(Input in) {
    last = m.step(in, now);
    all.addAll(last);
    return last;
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private boolean has(Class<? extends Command> type) {
    return last.stream().anyMatch(type::isInstance);
  }

  private Command.SetTimer campaignTimer() {
    return last.stream().filter(c -> c instanceof Command.SetTimer t && t.timer() == TimerKind.CAMPAIGN)
        .map(Command.SetTimer.class::cast).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no CAMPAIGN timer in " + last));
  }

  private Command.SetTimer coldStart() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 10));
    assertFalse(has(EtcdCommand.GrantLease.class) || has(EtcdCommand.Rank.class), "waits first: " + last);
    Command.SetTimer t = campaignTimer();
    assertTrue(t.atNanos() >= now && t.atNanos() < now + STAGGER, "within the stagger: " + t);
    now = t.atNanos();
    step(new Input.TimerFired(t.timer(), t.seq()));
    return t;
  }

  @Test
  void aFirstCampaignWaitsItsShareThenReadsTheKeyAgainBeforeItGrants() {
    coldStart();
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 11));
    only(EtcdCommand.GrantLease.class);
  }

  @Test
  void aCandidateWhoseWaitShowsTheKeyTakenFollowsWithoutAGrantForACampaign() {
    coldStart();
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 11, 11), 11));
    assertEquals("other", m.leader().candidateId());
    assertFalse(has(EtcdCommand.Campaign.class), last.toString());
  }

  @Test
  void aFailoverAfterALeaderWasSeenDoesNotWait() {
    coldStart();
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), new KeyRecord("other", 5, 11, 11), 11));
    // The leader goes: the next campaign ranks at once, with no stagger.
    long watch = all.stream().filter(EtcdCommand.Watch.class::isInstance).map(EtcdCommand.Watch.class::cast)
        .reduce((a, b) -> b).orElseThrow().watchId();
    step(new EtcdInput.WatchDelete(watch, 12));
    assertTrue(has(EtcdCommand.Rank.class) || has(EtcdCommand.GrantLease.class)
        || has(EtcdCommand.Campaign.class), "acts at once: " + last);
    for (Command c : last) {
      assertFalse(c instanceof Command.SetTimer t && t.timer() == TimerKind.CAMPAIGN && t.atNanos() > now,
          "no wait: " + last);
    }
  }
}
