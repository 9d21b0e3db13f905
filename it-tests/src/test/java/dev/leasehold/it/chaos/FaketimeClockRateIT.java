package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.it.ClockProbeMain;
import dev.leasehold.it.Faketime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * FaketimeClockRateIT proves what the clock-rate nemesis relies on: a child JVM started under
 * libfaketime ({@link Faketime}) sees {@link System#nanoTime()} run at the rate asked, measured
 * against this JVM's clock, finely enough to tell 0.5 % from none.
 */
class FaketimeClockRateIT {
  private static final int TICKS = 40;

  @Test
  void childNanoTimeRunsAtTheFaketimeRate() throws Exception {
    double[] rates = {1.5, 0.5, 1.005, 0.995, 1.0};
    List<CompletableFuture<Double>> measured = new ArrayList<>();
    for (double rate : rates) {
      measured.add(CompletableFuture.supplyAsync(() -> measure(rate)));
    }
    for (int i = 0; i < rates.length; i++) {
      double got = measured.get(i).get(60, TimeUnit.SECONDS);
      System.out.printf(Locale.ROOT, "faketime x%s: child nanoTime rate %.5f of this JVM's%n", rates[i], got);
      // Least squares over 35 ticks: the pipe's jitter (ms) spreads over 2 s of readings, and it
      // tilts the fitted slope in proportion to the rate (1.5025 at x1.5 on a loaded machine), so
      // the tolerance is relative: 0.2 %, still well under the 0.5 % the nemesis must tell apart.
      assertEquals(rates[i], got, 0.002 * rates[i], "child's clock rate under FAKETIME x" + rates[i]);
    }
  }

  // Starts a ClockProbeMain under faketime at rate and fits its readings against ours.
  private static double measure(double rate) {
    try {
      ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
          ClockProbeMain.class.getName(), Integer.toString(TICKS));
      pb.environment().putAll(Faketime.environment(rate));
      pb.redirectError(ProcessBuilder.Redirect.DISCARD);
      Process p = pb.start();
      List<double[]> points = new ArrayList<>();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          long ours = System.nanoTime();
          if (line.startsWith("TICK ")) {
            points.add(new double[] {ours, Long.parseLong(line.substring(5))});
          }
        }
      }
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "clock probe did not exit");
      assertEquals(TICKS, points.size(), "ticks read from the clock probe under FAKETIME x" + rate);
      return slope(points.subList(5, points.size()));
    } catch (Exception e) {
      throw new IllegalStateException("clock probe under FAKETIME x" + rate + " failed", e);
    }
  }

  private static double slope(List<double[]> xy) {
    double x0 = xy.get(0)[0];
    double y0 = xy.get(0)[1];
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (double[] p : xy) {
      double x = p[0] - x0;
      double y = p[1] - y0;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    int n = xy.size();
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
  }
}
