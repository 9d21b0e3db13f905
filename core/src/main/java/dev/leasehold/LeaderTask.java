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
   *
   * @param leadership the term the work runs in; valid when run starts, and may end at any time
   *     after
   * @return the task's result, reported in {@link LeaderTaskOutcome#value()}; null is allowed
   * @throws Exception anything; the runner catches it and reports it in {@link
   *     LeaderTaskOutcome#failure()}
   */
  T run(Leadership leadership) throws Exception;
}
