package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.Random;

/**
 * Fault is one kind of failure the chaos run injects and heals (a "failpoint").
 *
 * <p>The runner calls, per iteration: {@link #checkBefore}, {@link #inject} (which picks and
 * returns its target), waits {@link #hold}, {@link #recover}, then {@link #checkAfter}, and
 * prints {@link ChaosContext#reportLine}. Implementations keep the target between inject and
 * recover; one instance runs one iteration at a time. Not thread-safe.
 */
public interface Fault {
  /** name is the fault's name in the report, such as {@code etcd-kill-leader}. */
  String name();

  /** kind says whether it hits etcd or a candidate. */
  TargetKind kind();

  /** quorumKept tells whether a majority of etcd members stays up and connected while it lasts. */
  default boolean quorumKept() {
    return true;
  }

  /** checkBefore waits for the system the fault expects: etcd healthy, every candidate up, one MASTER. */
  default void checkBefore(ChaosContext ctx) throws Exception {
    ctx.awaitSteady(ctx.steadyTimeout());
  }

  /** inject applies the fault and returns the target's name (member or candidate process). */
  String inject(ChaosContext ctx, Random random) throws Exception;

  /** hold is how long the fault stays in place before {@link #recover}. */
  Duration hold(ChaosContext ctx, Random random);

  /** recover heals the fault (restarts, resumes, reconnects what it broke). */
  void recover(ChaosContext ctx) throws Exception;

  /** checkAfter waits until etcd is healthy again and a MASTER exists; the strict bound is the checker's. */
  default void checkAfter(ChaosContext ctx) throws Exception {
    ctx.awaitSteady(ctx.steadyTimeout());
  }
}
