package dev.leasehold.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Faketime runs a child process under libfaketime with its clocks running at another rate: the
 * environment {@code LD_PRELOAD=<libfaketime.so.1>} and {@code FAKETIME="+0 x<rate>"}. libfaketime
 * fakes {@code CLOCK_MONOTONIC} too unless {@code FAKETIME_DONT_FAKE_MONOTONIC=1} is set, so a
 * JVM's {@link System#nanoTime()} (and every timer and sleep built on it) runs at that rate;
 * {@code FaketimeClockRateIT} measures it. The library is Debian's {@code libfaketime} package
 * (installed by {@code scripts/ensure-deps.sh}). Stateless; thread-safe.
 */
public final class Faketime {
  private static final List<Path> PLACES = List.of(
      Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
      Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
      Path.of("/usr/lib/faketime/libfaketime.so.1"),
      Path.of("/usr/local/lib/faketime/libfaketime.so.1"));

  private Faketime() {}

  /**
   * library is libfaketime's shared object.
   *
   * @return its path
   * @throws IllegalStateException naming the places searched, when it is not installed
   */
  public static Path library() {
    return PLACES.stream().filter(Files::isReadable).findFirst().orElseThrow(() -> new IllegalStateException(
        "libfaketime.so.1 not found in " + PLACES + "; install Debian's libfaketime (scripts/ensure-deps.sh)"));
  }

  /**
   * environment is what a child process needs in its environment to run its clocks at {@code rate}.
   *
   * @param rate how fast the child's clocks run against the real ones (1.5: 50 % fast; 0.995: 0.5 % slow)
   * @return the variables to add to the child's environment
   * @throws IllegalArgumentException when {@code rate} is not positive
   */
  public static Map<String, String> environment(double rate) {
    if (!(rate > 0)) {
      throw new IllegalArgumentException("rate must be > 0, was " + rate);
    }
    return Map.of(
        "LD_PRELOAD", library().toString(),
        "FAKETIME", String.format(Locale.ROOT, "+0 x%s", rate),
        // Each clock call reads the rate afresh instead of a cached offset, so the rate holds
        // exactly from the first call on.
        "FAKETIME_NO_CACHE", "1");
  }
}
