package dev.leasehold.runtime;

import java.util.PriorityQueue;
import java.util.concurrent.Executor;

/**
 * ManualScheduler runs the loop's tasks and timers on virtual time when a test advances it, and
 * delivers events on the calling thread. Not thread-safe: one test thread drives it.
 */
final class ManualScheduler implements Scheduler {
  private record Task(long at, long seq, Runnable r) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private long now = 1_000_000_000L;
  private long seq;

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(new Task(now, seq++, task));
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    Task t = new Task(now + Math.max(0, delayNanos), seq++, task);
    tasks.add(t);
    return () -> tasks.remove(t);
  }

  @Override
  public Executor dispatcher() {
    return Runnable::run;
  }

  @Override
  public boolean onDispatcher() {
    return false;
  }

  @Override
  public void shutdown() {}

  @Override
  public void awaitTermination() {}

  /** runFor runs every task due within {@code nanos} of virtual time, in order. */
  void runFor(long nanos) {
    long end = now + nanos;
    while (!tasks.isEmpty() && tasks.peek().at() <= end) {
      Task t = tasks.poll();
      now = Math.max(now, t.at());
      t.r().run();
    }
    now = end;
  }
}
