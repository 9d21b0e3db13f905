package dev.leasehold.etcd;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Hedge sends a renewal's call again when the first copy has not been answered in time, or
 * when it was refused by its member alone, and takes the first answer (PROTOCOL.md §4.2).
 * jetcd's channel picks a member per call round-robin, so the second copy goes to another member
 * whenever more than one is connected: a hung member then costs a renewal the hedge delay, not
 * the whole rpc timeout, and a cut-off member that answers {@code no leader} at once costs it
 * nothing.
 *
 * <p>Only calls whose second copy changes nothing are hedged: a keep-alive (a second one only
 * renews again; the machine counts the deadline from the first one's send time, which is the
 * earlier) and a confirming read (either copy was sent after the ack, and the machine checks
 * the raft term of whichever answers). The copy that loses is left to its gRPC deadline
 * ({@link EtcdCallPolicy}).
 *
 * <ul>
 *   <li>The first success completes the result.
 *   <li>A failure of the first copy that another member may not share ({@code
 *       sendAgainAtOnce}: etcd's {@code UNAVAILABLE}, which a member without a leader and a
 *       refused connection answer) sends the second copy at once, if it is not out yet.
 *   <li>Any other failure of the first copy before the delay fails the result at once (the
 *       machine's own retry follows); after the second copy went out, the result fails only
 *       when both have, with the last failure.
 * </ul>
 *
 * <p>At most two copies go out per call, so a cluster that refuses everywhere costs one extra
 * call per renewal attempt, and the machine's backed-off retry still paces them.
 *
 * <p>Thread-safe: the copies complete on jetcd's threads, the second is sent from the JVM's
 * shared delay thread ({@link CompletableFuture#delayedExecutor}), which only starts the call.
 */
final class Hedge {
  private Hedge() {}

  /**
   * first runs {@code call}, and once more after {@code afterNanos} unless answered by then, or
   * at once when the first copy fails as {@code sendAgainAtOnce} accepts.
   */
  static <T> CompletableFuture<T> first(
      Supplier<CompletableFuture<T>> call, long afterNanos, Predicate<Throwable> sendAgainAtOnce) {
    Copies<T> copies = new Copies<>(call, sendAgainAtOnce);
    copies.send(true);
    Executor later = CompletableFuture.delayedExecutor(afterNanos, TimeUnit.NANOSECONDS, Runnable::run);
    later.execute(() -> {
      if (!copies.result.isDone() && copies.second.compareAndSet(false, true)) {
        copies.open.incrementAndGet();
        copies.send(false);
      }
    });
    return copies.result;
  }

  /** Copies is one hedged call's state: its result, the copies still open, the second's dispatch. */
  private static final class Copies<T> {
    final CompletableFuture<T> result = new CompletableFuture<>();
    // Copies sent and not yet failed; the result fails when none is left.
    final AtomicInteger open = new AtomicInteger(1);
    // Set by whichever sends the second copy: the delay, or the first copy's refusal.
    final AtomicBoolean second = new AtomicBoolean();
    private final Supplier<CompletableFuture<T>> call;
    private final Predicate<Throwable> sendAgainAtOnce;

    Copies(Supplier<CompletableFuture<T>> call, Predicate<Throwable> sendAgainAtOnce) {
      this.call = call;
      this.sendAgainAtOnce = sendAgainAtOnce;
    }

    void send(boolean first) {
      CompletableFuture<T> copy;
      try {
        copy = call.get();
      } catch (RuntimeException e) {
        copy = CompletableFuture.failedFuture(e);
      }
      copy.whenComplete((r, e) -> {
        if (e == null) {
          result.complete(r);
        } else if (first && !result.isDone() && sendAgainAtOnce.test(e) && second.compareAndSet(false, true)) {
          // The first copy's place is taken by the second: open stays at one.
          send(false);
        } else if (open.decrementAndGet() <= 0) {
          result.completeExceptionally(e);
        }
      });
    }
  }
}
