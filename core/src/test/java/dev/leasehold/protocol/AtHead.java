package dev.leasehold.protocol;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.List;

/**
 * AtHead answers a follower's count of the queue (PROTOCOL.md §4.5) with "nobody ahead", for
 * tests about what the head of the queue does next. A candidate in no queue then waits a random
 * part of one stagger and reads the key again: AtHead fires that wait at once and answers the
 * read with the key still absent (at an old revision, which tells the machine nothing new).
 */
final class AtHead {
  private AtHead() {}

  /** answer steps {@code m} with Ranked(0) if {@code out} holds a Rank, returning all commands. */
  static List<Command> answer(ElectionMachine m, List<Command> out, long now) {
    for (Command c : out) {
      if (c instanceof EtcdCommand.Rank r) {
        List<Command> all = new ArrayList<>(out);
        List<Command> ranked = m.step(new EtcdInput.Ranked(r.op(), 0, 1), now);
        all.addAll(ranked);
        for (Command w : ranked) {
          if (w instanceof Command.SetTimer t && t.timer() == TimerKind.CAMPAIGN) {
            for (Command p : m.step(new Input.TimerFired(TimerKind.CAMPAIGN, t.seq()), now)) {
              if (p instanceof EtcdCommand.Poll poll) {
                all.addAll(m.step(new EtcdInput.PollResult(poll.op(), null, 1), now));
              }
            }
          }
        }
        return all;
      }
    }
    return out;
  }
}
