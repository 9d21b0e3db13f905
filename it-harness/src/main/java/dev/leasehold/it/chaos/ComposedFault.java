package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.Random;

/**
 * ComposedFault injects two faults at once (issue 27's composed nemeses): {@code first}, then
 * {@code second} right after it; it holds them for the longer of their holds and heals them in
 * the reverse order ({@code second} first, so that, say, a partition heals before a killed
 * member restarts into it).
 *
 * <p>For the checker it is one fault window: a candidate fault when either part hits a candidate
 * (its target is then that candidate's process, whose loss of its term is expected), else a
 * store fault; {@code quorumKept} is given, since two store faults that each keep a quorum may
 * not keep it together. Both targets go to the history as a note. Not thread-safe.
 */
final class ComposedFault implements Fault {
  private final Fault first;
  private final Fault second;
  private final boolean quorumKept;

  /** ComposedFault composes {@code first} and {@code second}; {@code quorumKept} says whether etcd keeps a quorum through both. */
  ComposedFault(Fault first, Fault second, boolean quorumKept) {
    this.first = first;
    this.second = second;
    this.quorumKept = quorumKept;
  }

  @Override
  public String name() {
    return first.name() + "+" + second.name();
  }

  @Override
  public TargetKind kind() {
    return first.kind() == TargetKind.CANDIDATE || second.kind() == TargetKind.CANDIDATE
        ? TargetKind.CANDIDATE : TargetKind.STORE;
  }

  @Override
  public boolean quorumKept() {
    return quorumKept;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws Exception {
    String a = first.inject(ctx, random);
    String b;
    try {
      b = second.inject(ctx, random);
    } catch (Exception | Error e) {
      first.recover(ctx);
      throw e;
    }
    ctx.recorder().note(name() + ": " + first.name() + " on " + a + ", " + second.name() + " on " + b);
    if (kind() == TargetKind.CANDIDATE) {
      return first.kind() == TargetKind.CANDIDATE ? a : b;
    }
    return a + "+" + b;
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    Duration a = first.hold(ctx, random);
    Duration b = second.hold(ctx, random);
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void recover(ChaosContext ctx) throws Exception {
    try {
      second.recover(ctx);
    } finally {
      first.recover(ctx);
    }
  }
}
