package dev.leasehold.test;

import java.util.ArrayList;
import java.util.List;

/**
 * History keeps the last lines of one schedule, for a failure's report: who led, which events,
 * which faults, what the user's code did; each line with its virtual time.
 *
 * <p>Not thread-safe: the simulation's one thread writes it.
 */
final class History {
  private final VirtualTime time;
  private final Entry[] ring;
  private long count;

  History(VirtualTime time, int capacity) {
    this.time = time;
    this.ring = new Entry[capacity];
  }

  void add(String who, String what) {
    // Formatted only for a report: most schedules pass.
    ring[(int) (count++ % ring.length)] = new Entry(time.nanoTime(), who, what);
  }

  List<String> lines() {
    List<String> out = new ArrayList<>();
    long from = Math.max(0, count - ring.length);
    for (long i = from; i < count; i++) {
      Entry e = ring[(int) (i % ring.length)];
      out.add(String.format("%12s  %-8s %s", fmt(e.nanos), e.who, e.what));
    }
    return out;
  }

  long count() {
    return count;
  }

  private record Entry(long nanos, String who, String what) {}

  static String fmt(long nanos) {
    return String.format("%d.%03d s", nanos / 1_000_000_000L, (nanos / 1_000_000L) % 1000);
  }
}
