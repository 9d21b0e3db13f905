package dev.leasehold.it.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * RunLog is where a chaos run reports ({@link ChaosRunner}, {@link SpreadChaosRunner}): each line
 * goes to the caller and, as it comes, to {@code progress.log} in the run's directory; an aborted
 * run leaves its history there; a failed one shows the history around its first violations.
 *
 * <p>Used from the runner's thread only; not thread-safe.
 */
final class RunLog {
  private final Consumer<String> out;
  private final Path dir;

  /** RunLog reports to {@code out} and into {@code dir}, which it creates. */
  RunLog(Consumer<String> out, Path dir) throws IOException {
    this.out = out;
    this.dir = dir;
    Files.createDirectories(dir);
  }

  /** dir is the run's directory. */
  Path dir() {
    return dir;
  }

  /** historyFile is where the run's full history goes. */
  Path historyFile() {
    return dir.resolve("history.log");
  }

  /**
   * say hands a line to the caller and appends it to {@code progress.log} at once: Failsafe may
   * hold a test's output until the test ends, and a long run is watched while it goes.
   */
  void say(String line) {
    out.accept(line);
    try {
      Files.writeString(dir.resolve("progress.log"), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // Progress is a convenience; the report still gets every line.
    }
  }

  /**
   * aborted leaves {@code recorder}'s history behind for the post-mortem of a run that broke
   * with {@code e}, and says so with the last lines before it; {@code extra} is appended (may be empty).
   */
  void aborted(String run, long seed, HistoryRecorder recorder, Throwable e, String extra) {
    long now = System.nanoTime();
    try {
      recorder.note("run aborted: " + e);
      recorder.writeLog(historyFile());
    } catch (IOException ignored) {
      // The original failure matters more.
    }
    say(run + ": run aborted (seed " + seed + "): " + e + "; history in " + historyFile() + "; last lines:\n"
        + String.join("\n", recorder.excerpt(now, 10_000_000_000L, 80)) + extra);
  }

  /**
   * appendViolations lists {@code violations}, each of the first five with the lines {@code
   * recorder} holds within {@code radiusNanos} of it (events, harness notes, non-OK writes).
   */
  static void appendViolations(StringBuilder b, List<ChaosViolation> violations, HistoryRecorder recorder,
      long radiusNanos) {
    b.append(violations.size()).append(" violation(s):\n");
    int shown = 0;
    for (ChaosViolation v : violations) {
      b.append("  ").append(v).append('\n');
      if (shown++ < 5) {
        b.append("  history around it (events, harness notes, non-OK writes):\n");
        b.append(recorder.excerpt(v.at(), radiusNanos, 60).stream()
            .map(l -> "    " + l).collect(Collectors.joining("\n"))).append('\n');
      }
    }
  }
}
