package dev.leasehold.it.chaos;

/**
 * StallMonitor measures, in the harness JVM, how late a thread that sleeps 20 ms wakes up, and
 * records every wake-up more than 100 ms late as a stall of "harness": on a machine shared with
 * other work, that is the evidence that nothing (etcd members included) got the CPU then.
 * Thread-safe; {@link #close()} stops it.
 */
final class StallMonitor implements AutoCloseable {
  private final Thread thread;
  private volatile boolean stopped;

  StallMonitor(HistoryRecorder recorder) {
    thread = new Thread(() -> {
      while (!stopped) {
        long before = System.nanoTime();
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
        long after = System.nanoTime();
        if (after - before > 120_000_000L) {
          recorder.stalled("harness", before + 20_000_000L, after);
        }
      }
    }, "chaos-stall-monitor");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
