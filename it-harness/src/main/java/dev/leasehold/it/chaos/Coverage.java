package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Freeze;
import dev.leasehold.it.chaos.History.Interval;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage is the time a (not frozen) MASTER existed, as sorted disjoint [from, to) pieces, and
 * the questions {@link HistoryChecker}'s liveness check asks of it. Stateless; thread-safe.
 */
final class Coverage {
  private Coverage() {}

  /** of is the union of all intervals minus the freezes of their processes, as sorted disjoint [from, to). */
  static List<long[]> of(History h) {
    List<long[]> pieces = new ArrayList<>();
    for (Interval iv : h.intervals()) {
      List<long[]> parts = new ArrayList<>();
      parts.add(new long[] {iv.start(), iv.end()});
      for (Freeze f : h.freezes()) {
        if (!f.process().equals(iv.process())) {
          continue;
        }
        List<long[]> next = new ArrayList<>();
        for (long[] p : parts) {
          if (f.to() <= p[0] || f.from() >= p[1]) {
            next.add(p);
            continue;
          }
          if (f.from() > p[0]) {
            next.add(new long[] {p[0], f.from()});
          }
          if (f.to() < p[1]) {
            next.add(new long[] {f.to(), p[1]});
          }
        }
        parts = next;
      }
      pieces.addAll(parts);
    }
    pieces.sort((x, y) -> Long.compare(x[0], y[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] p : pieces) {
      if (p[1] <= p[0]) {
        continue;
      }
      if (!merged.isEmpty() && p[0] <= merged.get(merged.size() - 1)[1]) {
        long[] last = merged.get(merged.size() - 1);
        last[1] = Math.max(last[1], p[1]);
      } else {
        merged.add(new long[] {p[0], p[1]});
      }
    }
    return merged;
  }

  static long firstCoveredAtOrAfter(List<long[]> covered, long t) {
    for (long[] c : covered) {
      if (c[1] > t) {
        return Math.max(c[0], t);
      }
    }
    return Long.MAX_VALUE;
  }

  static long longestGap(List<long[]> covered, long from, long to) {
    long longest = 0;
    long cursor = from;
    for (long[] c : covered) {
      if (c[1] <= cursor) {
        continue;
      }
      if (c[0] >= to) {
        break;
      }
      if (c[0] > cursor) {
        longest = Math.max(longest, c[0] - cursor);
      }
      cursor = Math.max(cursor, c[1]);
    }
    if (cursor < to) {
      longest = Math.max(longest, to - cursor);
    }
    return longest;
  }
}
