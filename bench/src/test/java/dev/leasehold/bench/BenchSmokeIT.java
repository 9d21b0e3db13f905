package dev.leasehold.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * BenchSmokeIT runs the whole bench with a trial or two per scenario against real etcd, so the
 * bench cannot rot: every contender must produce numbers, and the report and plots must be
 * written. It checks that figures exist, not their values.
 */
class BenchSmokeIT {
  private static final List<String> CONTENDERS = List.of("Leasehold", "jetcd Election", "polling \\(seed\\)");

  @Test
  // A hang guard, not a speed assertion: the smoke run takes about 35 s on a quiet 2-core
  // machine and is sized for under 60 s, but a loaded machine must not turn it red.
  @Timeout(value = 300)
  void everyContenderProducesNumbersAndTheReportIsWritten(@TempDir Path out) throws Exception {
    long t0 = System.nanoTime();
    Path report = BenchMain.run(
        "--out", out.toString(), "--name", "smoke",
        "--variants", "NONE",
        "--parallel",
        "--floor-samples", "10", "--path-samples", "5",
        "--idle-counts", "1", "--idle-ttl", "2", "--idle-window", "1", "--idle-settle", "1",
        "--handover-trials", "2", "--handover-warmup", "0",
        "--crash-ttls", "2", "--crash-trials", "1", "--crash-warmup", "0",
        "--partition-trials", "1",
        "--group-settle-ms", "500", "--candidates", "2",
        "--child-jvm-opts", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1",
        "--scale-count", "10", "--scale-own-clients", "0", "--scale-handovers", "1", "--scale-cold-rounds", "1");
    String md = Files.readString(report, StandardCharsets.UTF_8);

    for (String c : CONTENDERS) {
      assertRow(md, "handover", "\\| " + c + " \\| [1-9]\\d* \\| " + NUMBER);
      assertRow(md, "crash failover", "\\| " + c + " \\| 2 s \\| 1 \\| " + NUMBER);
      assertRow(md, "partition", "\\| " + c + " \\| 1 \\| \\d/1");
      assertRow(md, "idle cost", "\\| " + c + " \\| 1 \\| \\d+\\.\\d\\d \\|");
    }
    assertRow(md, "floor", "\\| txn round trip \\(1 proposal\\) \\| 10 \\| " + NUMBER);
    assertRow(md, "floor", "\\| handover path: revoke → watch → txn with standby lease, after 150–250 ms idle "
        + "\\(as a handover trial\\) \\| 5 \\| " + NUMBER);
    assertRow(md, "scale", "\\| shared client \\| 10 \\| " + NUMBER);
    // The cold start's hops come from a second, traced cold start; the scale row from the untraced one.
    assertRow(md, "traced cold start", "\\| START_ON_LOOP \\| 10 \\| " + NUMBER);
    assertRow(md, "cold start CPU", "\\| shared client \\| 10 \\| " + NUMBER + " " + NUMBER + " " + NUMBER + " "
        + NUMBER + " " + NUMBER + " \\d+ % \\| " + NUMBER);
    assertRow(md, "cold start CPU", "\\| jetcd Election, shared client \\| 10 \\| " + NUMBER + " " + NUMBER + " "
        + NUMBER + " – \\| – \\| – \\| – \\|");
    assertRow(md, "cold start rounds", "\\| 1 \\| " + NUMBER + " " + NUMBER + " " + NUMBER + " " + NUMBER);
    assertRow(md, "machine", "\\| etcd \\| 3\\.");
    assertFalse(md.contains("phase aborted"), "a phase aborted:\n" + md);
    // The traced handovers' hops, from core's Flight Recorder events in the candidate JVMs.
    assertRow(md, "traced handovers", "\\| RESIGN_CALLED \\| [1-9]");
    assertRow(md, "traced handovers", "\\| ELECTED_PUBLISHED \\| [1-9]");
    for (String png : List.of("smoke-handover-cdf.png", "smoke-crash-failover-cdf.png", "smoke-stale-window-cdf.png")) {
      assertTrue(Files.size(out.resolve(png)) > 1000, png + " is missing or empty");
      assertTrue(md.contains("](" + png + ")"), "report does not show " + png);
    }
    assertTrue(Files.readAllLines(out.resolve("smoke-samples.csv")).size() > 10, "samples CSV too short");
    System.out.printf("bench smoke run took %.1f s%n", Duration.ofNanos(System.nanoTime() - t0).toMillis() / 1000.0);
  }

  private static final String NUMBER = "[0-9.]+ (ms|s) \\|";

  private static void assertRow(String md, String what, String regex) {
    assertTrue(Pattern.compile(regex).matcher(md).find(), what + ": no row matching " + regex + " in\n" + md);
  }
}
