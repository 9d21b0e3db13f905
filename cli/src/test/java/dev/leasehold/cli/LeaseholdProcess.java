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
 * log file, and the /proc helpers the tests use to find out whether a child (or any process of
 * its tree) still runs.
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
    return start(name, dir, env, List.of(), args);
  }

  /**
   * start runs the launcher through {@code wrapper} (a command that execs its arguments, such
   * as {@code setpriv --reuid ...}), with {@code args} and these extra environment variables.
   */
  static LeaseholdProcess start(String name, Path dir, Map<String, String> env, List<String> wrapper, String... args)
      throws IOException {
    return start(name, dir, env, wrapper, Path.of(System.getProperty("leasehold.launcher", "bin/leasehold")), args);
  }

  /**
   * start runs {@code launcher} (a bin/leasehold beside its target/ jar) through {@code wrapper},
   * in the launcher's installation directory, with {@code args} and these extra environment
   * variables.
   */
  static LeaseholdProcess start(String name, Path dir, Map<String, String> env, List<String> wrapper,
      Path launcher, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(launcher.toString());
    cmd.addAll(List.of(args));
    Path log = dir.resolve(name + ".log");
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (launcher.isAbsolute()) {
      pb.directory(launcher.getParent().getParent().toFile());
    }
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

  /** stdin writes {@code text} to leasehold's standard input and closes it. */
  void stdin(String text) throws IOException {
    try (var in = process.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
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

  /**
   * withMarker maps every live process (zombies have no arguments) one of whose arguments
   * contains {@code marker} to its arguments, from /proc.
   */
  static Map<Long, List<String>> withMarker(String marker) {
    Map<Long, List<String>> found = new java.util.TreeMap<>();
    try (var entries = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) entries::iterator) {
        String name = p.getFileName().toString();
        if (name.chars().allMatch(Character::isDigit)) {
          try {
            String args = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
            if (args.contains(marker)) {
              found.put(Long.parseLong(name), List.of(args.split("\0")));
            }
          } catch (IOException e) {
            // Gone while we looked.
          }
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return found;
  }

  /** sleepers lists the live {@code sleep} processes whose arguments contain {@code marker}. */
  static List<Long> sleepers(String marker) {
    return withMarker(marker).entrySet().stream()
        .filter(e -> e.getValue().get(0).equals("sleep"))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** TREE_SLEEPERS is how many sleeps {@link #tree} starts. */
  static final int TREE_SLEEPERS = 5;

  /**
   * tree is a shell script that leaves a tree of {@link #TREE_SLEEPERS} sleeps, each with
   * {@code marker} in its argument: two grandchildren in its group (one under a nested shell), a
   * {@code setsid} escapee in a session of its own, one orphaned by a double fork, and the
   * script's own process, which becomes a sleep.
   */
  static String tree(String marker) {
    return "sleep 1001." + marker + " & setsid sleep 1002." + marker + " & (sleep 1003." + marker + " &);"
        + " sh -c 'sleep 1004." + marker + " & wait' & exec sleep 1000." + marker;
  }

  /** killAll SIGKILLs every process {@link #withMarker} finds: the leftovers of a test. */
  static void killAll(String marker) {
    withMarker(marker).keySet().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
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
