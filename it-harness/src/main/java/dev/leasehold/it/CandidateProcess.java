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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * CandidateProcess is a {@link CandidateMain} running in a child JVM, with its output lines
 * collected as they arrive.
 *
 * <p>Thread-safe: lines are collected by a reader thread into a list guarded by its own lock
 * (appends stay cheap when a chaos workload prints tens of thousands of lines); an optional
 * listener sees each line as it arrives, on the reader thread. Signals and commands may be
 * sent from any thread.
 */
public final class CandidateProcess implements AutoCloseable {
  private final String id;
  private final Process process;
  private final Writer stdin;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private CandidateProcess(String id, Process process, Consumer<String> listener) {
    this.id = id;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  if (listener != null) {
                    listener.accept(line);
                  }
                  synchronized (lines) {
                    lines.add(line);
                  }
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
    return start(id, endpoints, key, ttlSeconds, logFile, null, Map.of(), extraArgs);
  }

  /**
   * start launches a candidate JVM like {@link #start(String, List, String, int, Path, String...)},
   * hands every line it prints to {@code listener} (on the reader thread) as it arrives, and adds
   * {@code environment} to its environment (such as {@link Faketime#environment}, to run its
   * clocks at another rate).
   *
   * @param id the candidate id
   * @param endpoints the etcd endpoints it dials
   * @param key the election key
   * @param ttlSeconds its lease TTL
   * @param logFile where its stderr (its logs) goes
   * @param listener receives every line it prints, on the reader thread; may be null
   * @param environment variables added to the child's environment
   * @param extraArgs further {@code CandidateMain} arguments
   * @return the running candidate
   * @throws IOException if the JVM cannot be started
   */
  public static CandidateProcess start(
      String id,
      List<String> endpoints,
      String key,
      int ttlSeconds,
      Path logFile,
      Consumer<String> listener,
      Map<String, String> environment,
      String... extraArgs)
      throws IOException {
    List<String> args = new ArrayList<>();
    args.add("--endpoints=" + String.join(",", endpoints));
    args.add("--key=" + key);
    args.add("--id=" + id);
    args.add("--ttl-seconds=" + ttlSeconds);
    args.addAll(List.of(extraArgs));
    return launch(id, CandidateMain.class, args, logFile, listener, environment);
  }

  /**
   * launch starts {@code mainClass} in a child JVM on this JVM's class path, with the chaos
   * candidates' JVM options, its stderr (logs) appended to {@code logFile} and every line it
   * prints handed to {@code listener}: the way to run another line-protocol main, such as
   * {@link SpreadChaosMember}.
   *
   * @param id the name of the child in reports and thread names
   * @param mainClass the class whose {@code main} runs
   * @param args its arguments
   * @param logFile where its stderr goes
   * @param listener receives every line it prints, on the reader thread; may be null
   * @param environment variables added to the child's environment
   * @return the running child
   * @throws IOException if the JVM cannot be started
   */
  public static CandidateProcess launch(String id, Class<?> mainClass, List<String> args, Path logFile,
      Consumer<String> listener, Map<String, String> environment) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx128m");
    cmd.add("-XX:+UseSerialGC");
    // C1 only: on a 2-core machine shared with etcd, C2 compile bursts delay timers for nothing.
    cmd.add("-XX:TieredStopAtLevel=1");
    // The test class path also holds logback-test.xml, which logs to stdout, where the line
    // protocol lives: the child must use the main logback.xml (stderr, into logFile).
    cmd.add("-Dlogback.configurationFile=logback.xml");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(args);
    logFile.toAbsolutePath().getParent().toFile().mkdirs();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().putAll(environment);
    Process p = pb.start();
    return new CandidateProcess(id, p, listener);
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
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  /** awaitLine waits until a printed line matches, or throws after the timeout. */
  public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    int checked = 0;
    while (System.nanoTime() < end) {
      boolean alive = process.isAlive();
      List<String> fresh;
      synchronized (lines) {
        fresh = new ArrayList<>(lines.subList(checked, lines.size()));
      }
      checked += fresh.size();
      for (String l : fresh) {
        if (match.test(l)) {
          return l;
        }
      }
      if (!alive) {
        // Everything it printed before exiting has been read once the reader hits end of file.
        reader.join(TimeUnit.SECONDS.toMillis(5));
        synchronized (lines) {
          for (String l : lines.subList(checked, lines.size())) {
            if (match.test(l)) {
              return l;
            }
          }
        }
        throw new IllegalStateException(id + " exited with " + process.exitValue() + "; printed " + lines());
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(id + ": no matching line within " + timeout + "; printed " + lines());
  }

  /** send writes one command line to the child's stdin; lines sent from several threads do not mix. */
  public synchronized void send(String command) throws IOException {
    stdin.write(command + "\n");
    stdin.flush();
  }

  /**
   * kill sends SIGKILL, waits for the process to end, and then for the reader to have taken
   * every line the process printed before it died; returns the {@code System.nanoTime()} at
   * which it was seen gone.
   */
  public long kill() throws IOException, InterruptedException {
    // Not Process.destroyForcibly(): it also closes our end of the child's stdout, so lines the
    // child printed but the reader had not yet taken (a reader starved on a loaded machine) were
    // lost. The chaos checker then found store writes "matching no logged attempt".
    signal("KILL");
    process.waitFor(10, TimeUnit.SECONDS);
    long gone = System.nanoTime();
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return gone;
  }

  /** terminate sends SIGTERM (what a supervisor sends to stop a service) and waits for the exit. */
  public int terminate() throws IOException, InterruptedException {
    // Not Process.destroy(): it also closes our ends of the child's pipes, so the child would
    // see its stdin end and could print nothing more.
    signal("TERM");
    process.waitFor(20, TimeUnit.SECONDS);
    return process.isAlive() ? -1 : process.exitValue();
  }

  /** pause sends SIGSTOP. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** resume sends SIGCONT. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /**
   * awaitExit waits up to {@code timeout} for the child to exit and returns whether it did, once
   * the reader has taken every line it printed.
   */
  public boolean awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return false;
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return true;
  }

  /** isAlive tells whether the child still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  // kill(1)'s own output is dropped, as its exit status always was: a child that exits between a
  // check and the signal made it print "kill: (PID): No such process" into the demo's console.
  private void signal(String sig) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid()))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
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
