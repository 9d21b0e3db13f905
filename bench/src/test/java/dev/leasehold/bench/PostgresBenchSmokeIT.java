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
 * PostgresBenchSmokeIT runs the PostgreSQL floor with a few samples and the handover with one trial per contender
 * against a real postgres and pgbouncer, so the PostgreSQL bench cannot rot: every floor figure and both anchor
 * contenders must produce a number and the report must be written. It checks that figures exist, not their values;
 * the crash phase shares the handover's code paths (launch, events, report) and would double its time.
 */
class PostgresBenchSmokeIT {
  private static final String NUMBER = "[0-9.]+ (ms|s)";

  @Test
  // A hang guard, not a speed assertion: about 20 s on this 2-core machine at load 9.
  @Timeout(value = 180)
  void everyFloorFigureAndBothAnchorsProduceNumbersAndTheReportIsWritten(@TempDir Path out) throws Exception {
    long t0 = System.nanoTime();
    Path report = BenchMain.run(
        "--out", out.toString(), "--name", "smoke", "--phases", "postgres-floor,postgres-handover", "--parallel",
        "--postgres-floor-samples", "5", "--postgres-floor-warmup", "1",
        "--handover-trials", "1", "--handover-warmup", "0", "--group-settle-ms", "300", "--candidates", "2",
        "--child-jvm-opts", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    String md = Files.readString(report, StandardCharsets.UTF_8);
    for (String figure : List.of(PostgresFloor.SELECT_1, PostgresFloor.NOTIFY, PostgresFloor.NOTIFY_RELEASE,
        PostgresFloor.UNLOCK, PostgresFloor.UNLOCK_RELEASE, PostgresFloor.TERMINATE, PostgresFloor.ABORT,
        PostgresFloor.TAKE, PostgresFloor.RENEW, PostgresFloor.BOUNCER_NOTIFY, PostgresFloor.BOUNCER_TAKE)) {
      assertTrue(Pattern.compile("\\| " + Pattern.quote(figure) + " \\| 5 \\| " + NUMBER).matcher(md).find(),
          figure + ": no floor row in\n" + md);
    }
    for (String c : new String[] {"ShedLock-style lock row, polled every 1 s",
        "pg_try_advisory_lock every 2 s \\(scheduler design\\)"}) {
      assertTrue(Pattern.compile("\\| " + c + " \\| 1 \\| " + NUMBER).matcher(md).find(),
          c + ": no handover row in\n" + md);
    }
    // Leasehold's handover, statement by statement: its successor's wake-up and take were traced.
    for (String hop : List.of("RESIGN_CALLED", "REVOKE_ACKED", "WAKE_ACKED", "TAKE_ACKED", "ELECTED_PUBLISHED")) {
      assertTrue(Pattern.compile("\\| " + hop + " \\| 1 \\| " + "[0-9.]+ \\| ").matcher(md).find(),
          hop + ": no traced hop row in\n" + md);
    }
    assertTrue(md.contains("| PostgreSQL | PostgreSQL 15."), "no server version in\n" + md);
    assertTrue(md.contains("| PgBouncer | PgBouncer 1."), "no PgBouncer version in\n" + md);
    assertFalse(md.contains("phase aborted"), "a phase aborted:\n" + md);
    assertTrue(Files.size(out.resolve("smoke-handover-cdf.png")) > 1000, "handover plot missing");
    System.out.printf("PostgreSQL bench smoke run took %.1f s%n",
        Duration.ofNanos(System.nanoTime() - t0).toMillis() / 1000.0);
  }
}
