package dev.leasehold.bench;

import dev.leasehold.runtime.HandoverTrace;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * ColdStartHops records, in a JVM that runs many electors with {@code -Dleasehold.trace=true},
 * every handover-trace mark from the first {@code start()} until it is stopped, and sums them up
 * per hop: how many electors passed it and when the first, the median and the last did, in ms
 * since the first {@code start()}. The trace's ring holds 4,096 marks, so a thread drains it
 * every 10 ms. The marks are not told apart by elector: the summary shows when each round of
 * the cold start (reads, grants, campaigns) went through etcd, not one elector's path.
 *
 * <p>Thread-safe: the drain thread and the caller meet only in the synchronized list.
 */
final class ColdStartHops {
  private final long t0;
  private final List<HandoverTrace.Entry> marks = Collections.synchronizedList(new ArrayList<>());
  private final Thread drainer;

  /** ColdStartHops starts draining the trace; {@code t0} is the first start()'s System.nanoTime(). */
  ColdStartHops(long t0) {
    this.t0 = t0;
    HandoverTrace.drain();
    this.drainer = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        marks.addAll(HandoverTrace.drain());
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "cold-start-hops");
    drainer.setDaemon(true);
    drainer.start();
  }

  /**
   * stop ends the recording and returns one {@code HOP:n:first:p50:max} item per hop passed,
   * space-separated, times in ms since t0 (the form {@link #parse} reads).
   */
  String stop() throws InterruptedException {
    drainer.interrupt();
    drainer.join();
    marks.addAll(HandoverTrace.drain());
    Map<HandoverTrace.Hop, List<Long>> byHop = new EnumMap<>(HandoverTrace.Hop.class);
    synchronized (marks) {
      for (HandoverTrace.Entry m : marks) {
        // The trace counts a mark before writing it, so a drain can meet a slot not yet written
        // (time 0, or an older lap's mark): anything before t0 is such a slot.
        if (m.nanoTime() - t0 >= 0) {
          byHop.computeIfAbsent(m.hop(), h -> new ArrayList<>()).add(m.nanoTime() - t0);
        }
      }
    }
    StringJoiner out = new StringJoiner(" ");
    byHop.forEach((hop, times) -> {
      Collections.sort(times);
      out.add(String.format(Locale.ROOT, "%s:%d:%.1f:%.1f:%.1f", hop.name(), times.size(), times.get(0) / 1e6,
          times.get(times.size() / 2) / 1e6, times.get(times.size() - 1) / 1e6));
    });
    return out.toString();
  }

  /** Hop is one hop's summary: how many marks, and the first, median and last in ms since t0. */
  record Hop(String name, int n, double first, double p50, double max) {}

  /** parse reads what {@link #stop} wrote; an empty or absent value gives no hops. */
  static List<Hop> parse(String value) {
    List<Hop> hops = new ArrayList<>();
    if (value == null || value.isBlank()) {
      return hops;
    }
    for (String item : value.trim().split(" ")) {
      String[] f = item.split(":");
      hops.add(new Hop(f[0], Integer.parseInt(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3]),
          Double.parseDouble(f[4])));
    }
    return hops;
  }
}
