package dev.leasehold.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * CandidateProcess is a {@link CandidateMain} running in a child JVM, with its output lines
 * collected as they arrive.
 *
 * <p>Thread-safe: lines are collected by a reader thread into a concurrent list; signals and
 * commands may be sent from any thread.
 */
public final class CandidateProcess implements AutoCloseable {
  private final String id;
  private final Process process;
  private final Writer stdin;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private CandidateProcess(String id, Process process) {
    this.id = id;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException ended) {
                // The process is gone; what it printed is kept.
              }
            },
            "candidate-out-" + id);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * start launches a candidate JVM on this JVM's class path; its stderr (logs) goes to
   * {@code logFile}.
   */
  public static CandidateProcess start(
      String id, List<String> endpoints, String key, int ttlSeconds, Path logFile, String... extraArgs)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx128m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(CandidateMain.class.getName());
    cmd.add("--endpoints=" + String.join(",", endpoints));
    cmd.add("--key=" + key);
    cmd.add("--id=" + id);
    cmd.add("--ttl-seconds=" + ttlSeconds);
    cmd.addAll(List.of(extraArgs));
    logFile.toAbsolutePath().getParent().toFile().mkdirs();
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
    return new CandidateProcess(id, p);
  }

  /** id is the candidate id. */
  public String id() {
    return id;
  }

  /** pid is the child's process id. */
  public long pid() {
    return process.pid();
  }

  /** lines is a snapshot of everything the child printed so far. */
  public List<String> lines() {
    return new ArrayList<>(lines);
  }

  /** awaitLine waits until a printed line matches, or throws after the timeout. */
  public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      for (String l : lines) {
        if (match.test(l)) {
          return l;
        }
      }
      if (!process.isAlive() && lines.stream().noneMatch(match)) {
        throw new IllegalStateException(id + " exited with " + process.exitValue() + "; printed " + lines);
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(id + ": no matching line within " + timeout + "; printed " + lines);
  }

  /** send writes one command line to the child's stdin. */
  public void send(String command) throws IOException {
    stdin.write(command + "\n");
    stdin.flush();
  }

  /** kill sends SIGKILL and waits for the process to end. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** pause sends SIGSTOP. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** resume sends SIGCONT. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /** isAlive tells whether the child still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  private void signal(String sig) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start().waitFor();
  }

  /** close resumes the child if stopped and kills it if still running. */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        signal("CONT");
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (IOException | InterruptedException e) {
      process.destroyForcibly();
    }
  }
}
