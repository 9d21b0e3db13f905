package dev.leasehold.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Footprint is the forked bench JVM's heap after full GCs, its live threads and its resident
 * set size, for the scale and session phases. Not thread-safe to take concurrently with GC-heavy
 * work; immutable once taken.
 */
record Footprint(long heap, int threads, long rss) {
  /** now runs {@code gcs} full GCs 100 ms apart, then reads heap, threads and VmRSS. */
  static Footprint now(int gcs) throws Exception {
    for (int i = 0; i < gcs; i++) {
      System.gc();
      Thread.sleep(100);
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    int threads = ManagementFactory.getThreadMXBean().getThreadCount();
    long rss = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return new Footprint(heap, threads, rss);
  }
}
