package dev.leasehold.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * ProcessLines follows a child process's output: every line goes to a log file, and the lines
 * a test reads (all of them, or only its protocol lines) are kept in memory.
 *
 * <p>Thread-safe: a daemon reader thread appends under the list's lock; {@link #snapshot()}
 * copies under it.
 */
public final class ProcessLines {
  private final List<String> kept = new ArrayList<>();

  private ProcessLines() {}

  /**
   * follow starts reading {@code process}'s output (with its error stream redirected into it)
   * into {@code logFile}; {@code keep} maps each line to what is kept, or to null to keep nothing.
   *
   * @param process the child process
   * @param logFile where every line is written
   * @param name the reader thread's name
   * @param keep the line kept for the test, or null
   * @return the lines kept, growing while the process prints
   * @throws IOException if the log file cannot be opened
   */
  public static ProcessLines follow(Process process, Path logFile, String name, UnaryOperator<String> keep)
      throws IOException {
    ProcessLines lines = new ProcessLines();
    PrintWriter out = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8), true);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)); out) {
        for (String line; (line = r.readLine()) != null; ) {
          out.println(line);
          String k = keep.apply(line);
          if (k != null) {
            synchronized (lines.kept) {
              lines.kept.add(k);
            }
          }
        }
      } catch (IOException ended) {
        // The process is gone; what it printed is kept.
      }
    }, name);
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  /**
   * snapshot is a copy of the lines kept so far.
   *
   * @return the lines, oldest first
   */
  public List<String> snapshot() {
    synchronized (kept) {
      return new ArrayList<>(kept);
    }
  }
}
