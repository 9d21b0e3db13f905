package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.Command;
import java.util.ArrayList;
import java.util.List;

/**
 * AtHead answers a follower's count of the queue (PROTOCOL.md §4.5) with "nobody ahead", for
 * tests about what the head of the queue does next.
 */
final class AtHead {
  private AtHead() {}

  /** answer steps {@code m} with Ranked(0) if {@code out} holds a Rank, returning all commands. */
  static List<Command> answer(ElectionMachine m, List<Command> out, long now) {
    for (Command c : out) {
      if (c instanceof EtcdCommand.Rank r) {
        List<Command> all = new ArrayList<>(out);
        all.addAll(m.step(new EtcdInput.Ranked(r.op(), 0, 1), now));
        return all;
      }
    }
    return out;
  }
}
