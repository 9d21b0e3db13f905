package dev.leasehold.etcd;

import io.grpc.Context;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * ContextExecutor runs each task in the gRPC {@link Context} of the thread that submitted it.
 * As a jetcd client's executor it carries a call's own deadline ({@link CallDeadline}) from the
 * thread that makes the call to the thread that starts it. Shutting it down shuts down the
 * executor it wraps.
 *
 * <p>Thread-safe when the wrapped executor is.
 */
final class ContextExecutor extends AbstractExecutorService {
  private final ExecutorService pool;

  ContextExecutor(ExecutorService pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
  }

  @Override
  public void execute(Runnable task) {
    pool.execute(Context.current().wrap(task));
  }

  @Override
  public void shutdown() {
    pool.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return pool.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return pool.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return pool.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return pool.awaitTermination(timeout, unit);
  }
}
