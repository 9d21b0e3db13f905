package dev.leasehold.bench;

import java.util.Arrays;
import java.util.List;

/**
 * Stats summarises a sample of durations in milliseconds with nearest-rank percentiles: the
 * p-th percentile is the smallest sample with at least p % of the samples at or below it, so
 * every figure is a measured value (with 50 samples p99 is the maximum).
 *
 * <p>Written by hand rather than taken from HdrHistogram or commons-math: the samples are few
 * (tens), exact order statistics are what a reader expects, and the method is six lines.
 * Immutable.
 */
record Stats(int n, double min, double p50, double p90, double p99, double max, double mean) {
  static Stats of(List<Double> samples) {
    if (samples.isEmpty()) {
      return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    double[] s = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Stats(s.length, s[0], rank(s, 50), rank(s, 90), rank(s, 99), s[s.length - 1],
        Arrays.stream(s).average().orElse(Double.NaN));
  }

  private static double rank(double[] sorted, double p) {
    int r = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, r) - 1)];
  }
}
