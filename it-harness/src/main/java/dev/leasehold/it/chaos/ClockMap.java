package dev.leasehold.it.chaos;

import java.util.List;

/**
 * ClockMap maps one candidate JVM's {@code System.nanoTime()} stamps to the harness's, the clock
 * the checker judges on, when that JVM ran under libfaketime at another rate: {@code shared =
 * sharedAt + (own - ownAt) / rate}.
 *
 * <p>It is fitted ({@link #fit}) by least squares to clock probes: the harness sends its own
 * reading, the candidate echoes it with its own ({@code CLOCK <harness> <own>}), and the pair
 * stands for the moment halfway between the send and the echo's arrival. Probes whose round trip
 * took longer than {@link #MAX_ROUND_TRIP_NANOS} (a child or a harness not scheduled) are left
 * out. Immutable; thread-safe.
 *
 * @param ownAt a reading of the candidate's clock
 * @param sharedAt the harness's clock at that moment
 * @param rate how fast the candidate's clock ran against the harness's (1: the same)
 * @param probes how many probes the fit used
 * @param worstResidualNanos the largest distance of a probe used from the fitted line
 */
public record ClockMap(long ownAt, long sharedAt, double rate, int probes, long worstResidualNanos) {
  /** MAX_ROUND_TRIP_NANOS is the longest probe round trip a fit uses: 5 ms. */
  public static final long MAX_ROUND_TRIP_NANOS = 5_000_000L;

  /** MIN_PROBES is the fewest usable probes a fit needs. */
  public static final int MIN_PROBES = 10;

  /**
   * Probe is one clock probe.
   *
   * @param sent the harness's clock when it sent the probe
   * @param own the candidate's clock when it answered
   * @param arrived the harness's clock when the answer arrived
   */
  public record Probe(long sent, long own, long arrived) {}

  /**
   * fit fits the map to {@code probes}.
   *
   * @param probes the probes of one candidate process
   * @return the map
   * @throws IllegalStateException when fewer than {@link #MIN_PROBES} probes had a round trip of
   *     at most {@link #MAX_ROUND_TRIP_NANOS}
   */
  public static ClockMap fit(List<Probe> probes) {
    List<Probe> usable = probes.stream().filter(p -> p.arrived() - p.sent() <= MAX_ROUND_TRIP_NANOS).toList();
    if (usable.size() < MIN_PROBES) {
      throw new IllegalStateException("only " + usable.size() + " of " + probes.size() + " clock probes had a round"
          + " trip of at most " + MAX_ROUND_TRIP_NANOS / 1_000_000 + " ms; a fit needs " + MIN_PROBES);
    }
    // Least squares of shared on own, around the first probe so that doubles keep nanoseconds.
    long x0 = usable.get(0).own();
    long y0 = mid(usable.get(0));
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (Probe p : usable) {
      double x = p.own() - x0;
      double y = mid(p) - y0;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    int n = usable.size();
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double intercept = (sy - slope * sx) / n;
    ClockMap line = new ClockMap(x0, y0 + Math.round(intercept), 1 / slope, n, 0);
    long worst = 0;
    for (Probe p : usable) {
      worst = Math.max(worst, Math.abs(line.toShared(p.own()) - mid(p)));
    }
    return new ClockMap(line.ownAt, line.sharedAt, line.rate, n, worst);
  }

  /** toShared maps a stamp of the candidate's clock to the harness's; {@code Long.MAX_VALUE} (none) stays. */
  public long toShared(long own) {
    if (own == Long.MAX_VALUE) {
      return own;
    }
    return sharedAt + Math.round((own - ownAt) / rate);
  }

  private static long mid(Probe p) {
    return p.sent() + (p.arrived() - p.sent()) / 2;
  }
}
