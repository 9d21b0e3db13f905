package dev.leasehold.spring.it;

import dev.leasehold.it.ProcessLines;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * BootProcess runs {@link FencedJobApplication} (or another Boot application) in a child JVM on this JVM's class path,
 * collecting its "@@ " protocol lines and writing all its output to a log file.
 *
 * <p>Thread-safe: lines are collected by a reader thread ({@link ProcessLines}).
 */
final class BootProcess implements AutoCloseable {
  private final String id;
  private final Process process;
  private final ProcessLines lines;

  private BootProcess(String id, Process process, Path log) throws IOException {
    this.id = id;
    this.process = process;
    this.lines = ProcessLines.follow(process, log, "boot-out-" + id,
        line -> line.startsWith("@@ ") ? line.substring(3) : null);
  }

  /** start launches the application with {@code args} (Boot's --name=value properties). */
  static BootProcess start(String id, Path logDir, List<String> args) throws IOException {
    return start(FencedJobApplication.class, id, logDir, args);
  }

  /** start launches the application {@code main} with {@code args}. */
  static BootProcess start(Class<?> main, String id, Path logDir, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"),
        main.getName()));
    cmd.addAll(args);
    Files.createDirectories(logDir);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    return new BootProcess(id, p, logDir.resolve(id + ".log"));
  }

  String id() {
    return id;
  }

  /** lines is a snapshot of the protocol lines so far, without their "@@ " prefix. */
  List<String> lines() {
    return lines.snapshot();
  }

  /** awaitLine waits for a protocol line that matches, or throws after the timeout. */
  String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      for (String l : lines()) {
        if (match.test(l)) {
          return l;
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(id + " exited with " + process.exitValue() + "; see its log");
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(id + ": no matching line within " + timeout + "; printed " + lines());
  }

  /** kill sends SIGKILL and waits for the end. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** terminate sends SIGTERM (a graceful shutdown) and returns the exit code, or -1 if still running. */
  int terminate() throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).inheritIO().start().waitFor();
    process.waitFor(20, TimeUnit.SECONDS);
    return process.isAlive() ? -1 : process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
