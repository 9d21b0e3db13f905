package dev.leasehold.bench;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * ReportFormat holds the number and cell formatting that {@link Report}'s sections share: durations,
 * signed windows, percentile rows, verdicts and the busiest etcd methods of a window.
 *
 * <p>Thread-safe: static functions without state.
 */
final class ReportFormat {
  private ReportFormat() {}

  static Stats stats(List<Double> v) {
    return v == null || v.isEmpty() ? null : Stats.of(v);
  }

  static List<String> statsRow(String name, Stats s) {
    if (s == null) {
      return List.of(name, "0", "–", "–", "–", "–");
    }
    return List.of(name, Integer.toString(s.n()), ms(s.p50()), ms(s.p90()), ms(s.p99()), ms(s.max()));
  }

  /** writeMethods lists the write RPCs (raft proposals when they reach etcd) seen in a window. */
  static String writeMethods(EtcdMetrics.Rates x) {
    List<String> writes = List.of("LeaseGrant", "LeaseRevoke", "Txn", "Put", "DeleteRange");
    return x.messagesPerSecByMethod().entrySet().stream()
        .filter(e -> writes.contains(e.getKey()))
        .map(e -> e.getKey() + " " + f1(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  static String topMethods(EtcdMetrics.Rates x) {
    return x.messagesPerSecByMethod().entrySet().stream()
        .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
        .limit(3)
        .map(e -> e.getKey() + " " + f1(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  static String ms(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (Math.abs(v) >= 1000) {
      return String.format(Locale.ROOT, "%.2f s", v / 1000);
    }
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%.0f ms", v);
    }
    return String.format(Locale.ROOT, "%.1f ms", v);
  }

  static String signed(double v) {
    return Double.isNaN(v) ? "–" : (v >= 0 ? "+" : "−") + ms(Math.abs(v));
  }

  static String kib(double bytes) {
    return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%.0f KiB", bytes / 1024);
  }

  static String f0(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.0f", v);
  }

  static String f1(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v);
  }

  static String f2(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
  }

  static String verdict(boolean ok, String by) {
    return ok ? "met" : "**missed**" + (by.isBlank() ? "" : " " + by);
  }
}
