package dev.leasehold;

/**
 * LeaderTask is leader-only work for {@link LeaderElector#runWhileLeader}: it runs on a worker
 * thread with the term it may act in, and must stop when interrupted.
 *
 * <p>Thread safety: each run calls {@link #run} once, on that run's own worker thread; an
 * instance given to several runs at once must be thread-safe itself.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface LeaderTask<T> {
  /**
   * run does the work while {@code leadership} lasts. It is interrupted when the term ends,
   * and before the local deadline; it should check {@link Leadership#isValid()} before each
   * effect and guard effects with {@link Leadership#fencingToken()}.
   */
  T run(Leadership leadership) throws Exception;
}
