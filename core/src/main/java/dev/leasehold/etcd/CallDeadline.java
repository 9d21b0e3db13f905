package dev.leasehold.etcd;

import io.grpc.Context;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * CallDeadline gives one jetcd call a gRPC deadline of its own, longer than the RPC timeout
 * that {@link EtcdCallPolicy} gives every call: the cold campaign's grant and transaction
 * (PROTOCOL.md §4.4, §4.5), which in a cold start's herd are answered late and still serve.
 *
 * <p>The call is made inside a gRPC {@link Context} carrying the deadline. jetcd 0.8.5 submits
 * a call's first attempt to its client's executor from the calling thread, so the deadline
 * reaches the call when that executor carries the caller's {@code Context} ({@link
 * ContextExecutor}; the clients the elector makes have one), and {@link EtcdCallPolicy} then
 * keeps it. On a client without such an executor, or on jetcd's retry (made from another
 * thread), the call gets the client's own deadline, as every other call does.
 *
 * <p>Thread-safe: one timer for every call of the JVM, whose thread ends when idle.
 */
final class CallDeadline {
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private CallDeadline() {}

  /**
   * within makes the call that {@code call} starts inside a {@code Context} whose deadline is
   * {@code waitNanos} from now; with {@code waitNanos} 0 or less it makes it as it is.
   *
   * @param waitNanos the call's deadline from now, in nanoseconds; 0 or less: none of its own
   * @param call starts the jetcd call
   * @return the call's future
   */
  static <T> CompletableFuture<T> within(long waitNanos, Supplier<CompletableFuture<T>> call) {
    if (waitNanos <= 0) {
      return call.get();
    }
    Context.CancellableContext context =
        Context.current().withDeadlineAfter(waitNanos, TimeUnit.NANOSECONDS, TIMER);
    CompletableFuture<T> future;
    Context previous = context.attach();
    try {
      future = call.get();
    } finally {
      context.detach(previous);
    }
    // Done: drop the deadline's timer task (cancelling a context whose call ended touches nothing).
    future.whenComplete((r, e) -> context.cancel(null));
    return future;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "leasehold-call-deadline");
              thread.setDaemon(true);
              return thread;
            });
    t.setKeepAliveTime(1, TimeUnit.SECONDS);
    t.allowCoreThreadTimeOut(true);
    t.setRemoveOnCancelPolicy(true);
    return t;
  }
}
