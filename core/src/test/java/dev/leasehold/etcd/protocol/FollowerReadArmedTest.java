package dev.leasehold.etcd.protocol;

import static dev.leasehold.etcd.protocol.MachineSteps.MS;
import static dev.leasehold.etcd.protocol.MachineSteps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A follower whose way to a campaign ends without one (the key came back before its count or
 * stagger ran out) is left with its routine read armed (PROTOCOL.md §4.4, "poll"). The watch's
 * delete cancelled the poll and dropped the read in flight; a follower with no standby lease has
 * no renewal to read for it, so without the poll a silent watch would hide the key's next
 * release for good. The simulation's seed 161279 found it on the real runtime.
 */
class FollowerReadArmedTest {
  private static final ProtocolConfig CONFIG =
      new ProtocolConfig("me", 3, 300 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 200 * MS, 3 * S, true);
  private static final KeyRecord FIRST = new KeyRecord("other", 5, 3, 3);
  private static final KeyRecord SECOND = new KeyRecord("third", 6, 7, 7);

  private final ElectionMachine m = new ElectionMachine(CONFIG, new SplittableRandom(1));
  private final MachineSteps s = new MachineSteps(m);
  private long watchId;
  private long grantOp;

  /** A follower that saw FIRST lead, opened its watch and asked for a standby lease, not yet granted. */
  private void following() {
    s.step(new Input.Start());
    s.step(new EtcdInput.PollResult(s.only(EtcdCommand.Poll.class).op(), FIRST, 4));
    watchId = s.only(EtcdCommand.Watch.class).watchId();
    grantOp = s.only(EtcdCommand.GrantLease.class).op();
  }

  /** The watch shows FIRST's key deleted: the follower counts those ahead of it before campaigning. */
  private long deletedThenCounting() {
    s.now += 10 * MS;
    s.step(new EtcdInput.WatchDelete(watchId, 5));
    return s.only(EtcdCommand.Rank.class).op();
  }

  @Test
  void aCountThatFailsAfterTheKeyCameBackLeavesThePollArmed() {
    following();
    long rankOp = deletedThenCounting();
    s.step(new EtcdInput.WatchPut(watchId, SECOND, 7));
    s.now += 500 * MS;
    s.step(new EtcdInput.GrantFailed(grantOp, "timed out after 1000 ms"));
    s.step(new EtcdInput.RankFailed(rankOp, "timed out after 1000 ms"));
    assertEquals(ElectorState.FOLLOWER, m.role());
    Command.SetTimer poll = s.timer(TimerKind.POLL);
    assertTrue(poll.atNanos() <= s.now + CONFIG.pollIntervalNanos(), poll::toString);
    s.fire(poll);
    s.only(EtcdCommand.Poll.class);
  }

  @Test
  void aCountAnsweredAfterTheKeyCameBackLeavesThePollArmed() {
    following();
    long rankOp = deletedThenCounting();
    s.step(new EtcdInput.WatchPut(watchId, SECOND, 7));
    s.step(new EtcdInput.GrantFailed(grantOp, "timed out after 1000 ms"));
    s.step(new EtcdInput.Ranked(rankOp, 2, 7));
    s.timer(TimerKind.POLL);
  }

  @Test
  void aStaggerThatEndsWithTheKeyHeldAgainLeavesThePollArmed() {
    following();
    long rankOp = deletedThenCounting();
    s.step(new EtcdInput.Ranked(rankOp, 2, 6));
    Command.SetTimer campaign = s.timer(TimerKind.CAMPAIGN);
    s.step(new EtcdInput.WatchPut(watchId, SECOND, 7));
    s.step(new EtcdInput.GrantFailed(grantOp, "timed out after 1000 ms"));
    s.fire(campaign);
    s.timer(TimerKind.POLL);
  }
}
