package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * ColdStartHops records, in a JVM that runs many electors with {@code -Dleasehold.trace=true},
 * every hop core's Flight Recorder events mark (see {@link HopTrace}) from the first {@code
 * start()} until it is stopped, and sums them up per hop: how many electors passed it and when
 * the first, the median and the last did, in ms since the first {@code start()}. The hops are not
 * told apart by elector: the summary shows when each round of the cold start (reads, grants,
 * campaigns) went through etcd, not one elector's path.
 *
 * <p>Not thread-safe: made and stopped by one thread.
 */
final class ColdStartHops {
  /**
   * ColdStartHops starts recording: it drops what was recorded before, waiting for Flight
   * Recorder's next flush (up to a second), so the caller takes its t0 after this returns.
   */
  ColdStartHops() {
    HopTrace.drain();
  }

  /**
   * stop ends the recording and returns one {@code HOP:n:first:p50:max} item per hop passed,
   * space-separated, times in ms since {@code t0}, the first start()'s System.nanoTime() (the
   * form {@link #parse} reads).
   */
  String stop(long t0) {
    List<HopTrace.Entry> marks = HopTrace.drain();
    Map<HopTrace.Hop, List<Long>> byHop = new EnumMap<>(HopTrace.Hop.class);
    for (HopTrace.Entry m : marks) {
      // A hop recorded before t0 belongs to the warm-up, not to the cold start.
      if (m.nanoTime() - t0 >= 0) {
        byHop.computeIfAbsent(m.hop(), h -> new ArrayList<>()).add(m.nanoTime() - t0);
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
