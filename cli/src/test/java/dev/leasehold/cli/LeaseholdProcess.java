package dev.leasehold.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LeaseholdProcess is one {@code bin/leasehold} process of a test, its stdout and stderr in a
 * log file, and the /proc helpers the tests use to find out whether a child still runs.
 *
 * <p>Thread-safe: the process handle is; the log is read from the file on each call.
 */
final class LeaseholdProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private LeaseholdProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** start runs the launcher ({@code -Dleasehold.launcher}, set by the pom) with {@code args}. */
  static LeaseholdProcess start(String name, Path dir, String... args) throws IOException {
    return start(name, dir, Map.of(), args);
  }

  /** start runs the launcher with {@code args} and these extra environment variables. */
  static LeaseholdProcess start(String name, Path dir, Map<String, String> env, String... args) throws IOException {
    String launcher = System.getProperty("leasehold.launcher", "bin/leasehold");
    List<String> cmd = new ArrayList<>();
    cmd.add(launcher);
    cmd.addAll(List.of(args));
    Path log = dir.resolve(name + ".log");
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    Process p = pb
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    return new LeaseholdProcess(name, p, log);
  }

  /** pid is leasehold's own pid (the launcher execs the JVM). */
  long pid() {
    return process.pid();
  }

  /** log is everything the process printed so far. */
  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** find returns the first match of {@code regex} in the log. */
  Optional<Matcher> find(String regex) {
    Matcher m = Pattern.compile(regex).matcher(log());
    return m.find() ? Optional.of(m) : Optional.empty();
  }

  /** isAlive tells whether leasehold still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** exitCode waits up to {@code timeout} for leasehold to exit and returns its code. */
  int exitCode(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " still running after " + timeout + "; log:\n" + log());
    }
    return process.exitValue();
  }

  /** sigkill sends SIGKILL to leasehold. */
  void sigkill() {
    process.destroyForcibly();
  }

  /** signal sends {@code sig} (TERM, INT, HUP) to leasehold. */
  void signal(String sig) throws IOException, InterruptedException {
    kill(sig, process.pid());
  }

  /** name is the test's name for this process (also its candidate id). */
  String name() {
    return name;
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  @Override
  public String toString() {
    return name + "(pid " + process.pid() + (process.isAlive() ? "" : ", exited " + process.exitValue()) + ")";
  }

  /** kill sends {@code sig} to {@code pid} with kill(1). */
  static void kill(String sig, long pid) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-s", sig, Long.toString(pid)).inheritIO().start().waitFor();
  }

  /** running tells whether {@code pid} is a live process: present in /proc and not a zombie. */
  static boolean running(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException e) {
      return false;
    }
  }

  /** pidIn reads the pid a child wrote to {@code file}, or empty while it is not there. */
  static Optional<Long> pidIn(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
      return s.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(s));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }
}
