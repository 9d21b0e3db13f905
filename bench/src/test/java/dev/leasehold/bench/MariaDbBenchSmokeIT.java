package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * MariaDbBenchSmokeIT runs the MariaDB handover phase with one trial per contender against a
 * real mariadbd, so the MariaDB bench cannot rot: both contenders must produce a number and the
 * report must be written. It checks that figures exist, not their values; the other MariaDB
 * phases share its code paths (launch, events, report) and would take it over 30 s.
 */
class MariaDbBenchSmokeIT {
  @Test
  // A hang guard, not a speed assertion: 14 s measured on this 2-core machine (42 s at load 45).
  @Timeout(value = 180)
  void bothContendersProduceAHandoverAndTheReportIsWritten(@TempDir Path out) throws Exception {
    long t0 = System.nanoTime();
    Path report = BenchMain.run(
        "--out", out.toString(), "--name", "smoke", "--phases", "mariadb-handover", "--parallel",
        "--handover-trials", "1", "--handover-warmup", "0", "--group-settle-ms", "300", "--candidates", "2",
        "--child-jvm-opts", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    String md = Files.readString(report, StandardCharsets.UTF_8);
    for (String c : new String[] {"Leasehold-JDBC", "GET_LOCK every 2 s \\(scheduler design\\)"}) {
      assertTrue(Pattern.compile("\\| " + c + " \\| 1 \\| [0-9.]+ (ms|s) \\|").matcher(md).find(),
          c + ": no handover row in\n" + md);
    }
    assertTrue(md.contains("| MariaDB | 10."), "no server version in\n" + md);
    assertFalse(md.contains("phase aborted"), "a phase aborted:\n" + md);
    assertTrue(Files.size(out.resolve("smoke-handover-cdf.png")) > 1000, "handover plot missing");
    System.out.printf("MariaDB bench smoke run took %.1f s%n", Duration.ofNanos(System.nanoTime() - t0).toMillis() / 1000.0);
  }
}
