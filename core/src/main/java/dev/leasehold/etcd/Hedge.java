package dev.leasehold.etcd;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Hedge sends a renewal's call again when the first copy has not been answered in time, and
 * takes the first answer (PROTOCOL.md §4.2). jetcd's channel picks a member per call round-robin,
 * so the second copy goes to another member whenever more than one is connected: a hung or
 * cut-off member then costs a renewal the hedge delay, not the whole rpc timeout.
 *
 * <p>Only calls whose second copy changes nothing are hedged: a keep-alive (a second one only
 * renews again; the machine counts the deadline from the first one's send time, which is the
 * earlier) and a confirming read (either copy was sent after the ack, and the machine checks
 * the raft term of whichever answers). The copy that loses is left to its gRPC deadline
 * ({@link EtcdCallPolicy}).
 *
 * <ul>
 *   <li>The first success completes the result.
 *   <li>A failure of the first copy before the delay fails the result at once (the machine's
 *       own retry follows); after the second copy went out, the result fails only when both
 *       have, with the last failure.
 * </ul>
 *
 * <p>Thread-safe: the copies complete on jetcd's threads, the second is sent from the JVM's
 * shared delay thread ({@link CompletableFuture#delayedExecutor}), which only starts the call.
 */
final class Hedge {
  private Hedge() {}

  /** first runs {@code call}, and once more after {@code afterNanos} unless answered by then. */
  static <T> CompletableFuture<T> first(Supplier<CompletableFuture<T>> call, long afterNanos) {
    CompletableFuture<T> result = new CompletableFuture<>();
    // Copies sent and not yet failed; the result fails when none is left and no copy is due.
    AtomicInteger open = new AtomicInteger(1);
    attempt(call, result, open);
    Executor later = CompletableFuture.delayedExecutor(afterNanos, TimeUnit.NANOSECONDS, Runnable::run);
    later.execute(() -> {
      if (!result.isDone() && open.getAndIncrement() > 0) {
        attempt(call, result, open);
      }
    });
    return result;
  }

  private static <T> void attempt(
      Supplier<CompletableFuture<T>> call, CompletableFuture<T> result, AtomicInteger open) {
    CompletableFuture<T> copy;
    try {
      copy = call.get();
    } catch (RuntimeException e) {
      copy = CompletableFuture.failedFuture(e);
    }
    copy.whenComplete((r, e) -> {
      if (e == null) {
        result.complete(r);
      } else if (open.decrementAndGet() <= 0) {
        result.completeExceptionally(e);
      }
    });
  }
}
