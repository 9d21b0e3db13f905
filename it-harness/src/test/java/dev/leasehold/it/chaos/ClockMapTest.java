package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ClockMapTest fits maps to made-up probes of a clock at a known rate and offset, with round
 * trips of random length, as a child under libfaketime answers them.
 */
class ClockMapTest {
  private static final long MS = 1_000_000L;

  // A child clock at rate and offset; each probe takes a round trip of 0.1..rtMaxMillis ms, the
  // child answering at a random moment within it.
  private static List<ClockMap.Probe> probes(double rate, long offset, int n, double rtMaxMillis, Random r) {
    List<ClockMap.Probe> out = new ArrayList<>();
    long shared = 5_000_000_000_000L;
    for (int i = 0; i < n; i++) {
      shared += 50 * MS;
      long rt = (long) ((0.1 + r.nextDouble() * (rtMaxMillis - 0.1)) * MS);
      long answered = shared + (long) (r.nextDouble() * rt);
      out.add(new ClockMap.Probe(shared, offset + Math.round(answered * rate), shared + rt));
    }
    return out;
  }

  @Test
  void aFitRecoversTheRateAndMapsStampsToWithinAMillisecond() {
    Random r = new Random(7);
    for (double rate : new double[] {0.5, 0.995, 1.0, 1.005, 1.5}) {
      long offset = 1_796_490_016_239_171_585L;
      ClockMap map = ClockMap.fit(probes(rate, offset, 120, 2, r));
      assertEquals(rate, map.rate(), rate * 1e-4, "rate");
      long shared = 5_000_000_000_000L + 3_000 * MS;
      long own = offset + Math.round(shared * rate);
      assertTrue(Math.abs(map.toShared(own) - shared) < MS, () -> "mapped " + map.toShared(own) + " for " + shared);
      assertEquals(Long.MAX_VALUE, map.toShared(Long.MAX_VALUE), "no stamp stays none");
    }
  }

  @Test
  void probesWithSlowRoundTripsAreLeftOut() {
    Random r = new Random(8);
    List<ClockMap.Probe> probes = new ArrayList<>(probes(0.5, 0, 40, 2, r));
    // A child answering 40 ms late, its reading standing for the midpoint: 20 ms off the line.
    ClockMap.Probe p = probes.get(20);
    probes.set(20, new ClockMap.Probe(p.sent(), p.own() + 20 * MS, p.arrived() + 40 * MS));
    ClockMap map = ClockMap.fit(probes);
    assertEquals(39, map.probes());
    assertTrue(map.worstResidualNanos() < 2 * MS, () -> "worst residual " + map.worstResidualNanos());
  }

  @Test
  void tooFewUsableProbesAreRefused() {
    List<ClockMap.Probe> probes = probes(1.5, 0, ClockMap.MIN_PROBES - 1, 2, new Random(9));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> ClockMap.fit(probes));
    assertTrue(e.getMessage().contains("only 9 of 9 clock probes"), e.getMessage());
  }
}
