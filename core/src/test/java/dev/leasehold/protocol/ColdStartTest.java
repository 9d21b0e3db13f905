package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A cold start (PROTOCOL.md §4.5, a candidate in no queue) on the pure machine, with no store:
 * a candidate with no participant key of its own waits a random part of one stagger, and reads
 * the key again, before it campaigns; the head of a queue still campaigns at once.
 */
class ColdStartTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long STAGGER = 100 * MS;
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, STAGGER, 1 * S, 200 * MS, 3 * S, true);
  private static final KeyRecord OTHER = new KeyRecord("other", 5, 3, 3);

  private ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private final long start = 50 * S;
  private long now = start;
  private List<Command> last;
  private long watchId;

  private void step(Input in) {
    last = m.step(in, now);
    last.stream().filter(EtcdCommand.Watch.class::isInstance)
        .forEach(w -> watchId = ((EtcdCommand.Watch) w).watchId());
  }

  private <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  private boolean has(Class<? extends Command> type) {
    return last.stream().anyMatch(type::isInstance);
  }

  /** Start, find the key absent and nobody queued: the CAMPAIGN timer that is armed then. */
  private Command.SetTimer startAlone() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 4));
    EtcdCommand.Rank rank = only(EtcdCommand.Rank.class);
    assertEquals(0, rank.leaseId(), "with no participant key it counts them all");
    now += 2 * MS;
    step(new EtcdInput.Ranked(rank.op(), 0, 4));
    assertFalse(has(EtcdCommand.GrantLease.class), () -> "no campaign yet: " + last);
    return last.stream()
        .filter(c -> c instanceof Command.SetTimer t && t.timer() == TimerKind.CAMPAIGN)
        .map(Command.SetTimer.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no CAMPAIGN timer in " + last));
  }

  @Test
  void aCandidateInNoQueueWaitsThenReadsTheKeyAgainBeforeItCampaigns() {
    Command.SetTimer wait = startAlone();
    // Counted from when the key was seen absent, within one stagger.
    assertTrue(wait.atNanos() >= start && wait.atNanos() < start + STAGGER, () -> "at " + wait);
    now = wait.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, wait.seq()));
    assertFalse(has(EtcdCommand.GrantLease.class), "a read first");
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), null, 4));
    long grant = only(EtcdCommand.GrantLease.class).op();
    now += 3 * MS;
    step(new EtcdInput.LeaseGranted(grant, 77, 3));
    assertEquals(77, only(EtcdCommand.Campaign.class).leaseId(), "then the campaign");
  }

  @Test
  void aKeySeenDuringTheWaitEndsTheCampaignBeforeItStarts() {
    Command.SetTimer wait = startAlone();
    now += 1 * MS;
    step(new EtcdInput.WatchPut(watchId, OTHER, 5));
    assertTrue(last.stream().anyMatch(c -> c instanceof Command.Publish p
        && p.cause() == Cause.LEADER_CHANGED), () -> "the first one's key is seen: " + last);
    now = wait.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, wait.seq()));
    assertFalse(has(EtcdCommand.Poll.class), () -> "no read: " + last);
    assertFalse(has(EtcdCommand.Campaign.class), () -> "no campaign: " + last);
  }

  @Test
  void aKeyFoundByTheReadAfterTheWaitEndsTheCampaign() {
    Command.SetTimer wait = startAlone();
    now = wait.atNanos();
    step(new Input.TimerFired(TimerKind.CAMPAIGN, wait.seq()));
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), OTHER, 5));
    assertFalse(has(EtcdCommand.Campaign.class), () -> "no campaign: " + last);
    assertTrue(last.stream().noneMatch(c -> c instanceof Command.SetTimer t
        && t.timer() == TimerKind.CAMPAIGN), "and no second wait");
  }

  @Test
  void theWaitsOfCandidatesStartedTogetherSpreadOverOneStagger() {
    long least = Long.MAX_VALUE;
    long most = Long.MIN_VALUE;
    for (int seed = 1; seed <= 200; seed++) {
      m = new ElectionMachine(CONFIG, new SplittableRandom(seed));
      now = start;
      long d = startAlone().atNanos() - start;
      assertTrue(d >= 0 && d < STAGGER, "seed " + seed + ": " + d);
      least = Math.min(least, d);
      most = Math.max(most, d);
    }
    assertTrue(least < STAGGER / 20, "some wake almost at once: least " + least);
    assertTrue(most > STAGGER - STAGGER / 20, "others near the stagger's end: most " + most);
  }

  @Test
  void theHeadOfAQueueStillCampaignsAtOnce() {
    step(new Input.Start());
    step(new EtcdInput.PollResult(only(EtcdCommand.Poll.class).op(), OTHER, 4));
    long grant = only(EtcdCommand.GrantLease.class).op();
    step(new EtcdInput.LeaseGranted(grant, 77, 3));
    step(new EtcdInput.Enlisted(only(EtcdCommand.Enlist.class).op(), 5));
    now += 100 * MS;
    step(new EtcdInput.WatchDelete(watchId, 10));
    step(new EtcdInput.Ranked(only(EtcdCommand.Rank.class).op(), 0, 10));
    assertEquals(77, only(EtcdCommand.Campaign.class).leaseId(), "no wait at the head");
  }
}
