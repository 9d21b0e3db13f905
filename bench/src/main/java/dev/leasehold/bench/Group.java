package dev.leasehold.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Group is a set of child JVMs whose stdout lines (see {@code ContenderMain}) are merged into
 * one ordered event log that a scenario waits on.
 *
 * <p>Thread-safe: reader threads append under the group's monitor and wake waiters.
 */
final class Group implements AutoCloseable {
  /**
   * Ev is one line a child printed: E, R, T (as TRACE), READY, CLOSED, TRACE_END, LEADER_KNOWN, LEADER_UNKNOWN,
   * or any other line as LINE.
   */
  record Ev(Child child, int idx, long nanos, String type, String detail, int seq) {
    boolean is(String t) {
      return type.equals(t);
    }
  }

  // Child JVMs still running, killed by a shutdown hook if the bench exits early (Ctrl-C).
  private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(
        new Thread(() -> LIVE.forEach(Process::destroyForcibly), "bench-child-reaper"));
  }

  private final Path logDir;
  private final List<Ev> events = new ArrayList<>();
  private final List<Child> children = new CopyOnWriteArrayList<>();

  Group(Path logDir) {
    this.logDir = logDir;
    try {
      Files.createDirectories(logDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** launch starts a child JVM on this JVM's class path running {@code mainClass}. */
  Child launch(String label, String mainClass, List<String> jvmOptions, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(args);
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(label + ".log").toFile()))
              .start();
      LIVE.add(p);
      p.onExit().thenRun(() -> LIVE.remove(p));
      Child c = new Child(label, p);
      children.add(c);
      return c;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start child JVM " + label, e);
    }
  }

  /**
   * awaitSettled asks each of {@code children} to answer once every contender in it leads or knows who does, and
   * waits for the answers; returns those that did not settle within the child's bound (their contenders may still
   * be starting, so a handover measured now could find them not yet following).
   */
  List<Child> awaitSettled(List<Child> children, Duration timeout) throws Exception {
    int mark = mark();
    for (Child c : children) {
      c.send("settle");
    }
    List<Child> unsettled = new ArrayList<>();
    for (Child c : children) {
      Ev e = await(mark, x -> x.child() == c && (x.is("LEADER_KNOWN") || x.is("LEADER_UNKNOWN")), timeout);
      if (e.is("LEADER_UNKNOWN")) {
        unsettled.add(c);
      }
    }
    return unsettled;
  }

  /** mark is the sequence number the next event will get. */
  synchronized int mark() {
    return events.size();
  }

  /** await returns the first event at or after {@code from} that matches, waiting up to timeout. */
  Ev await(int from, Predicate<Ev> match, Duration timeout) throws TimeoutException, InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      int i = from;
      while (true) {
        for (; i < events.size(); i++) {
          if (match.test(events.get(i))) {
            return events.get(i);
          }
        }
        long left = end - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException("no matching event within " + timeout);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** find is like await but returns empty instead of throwing on timeout. */
  Optional<Ev> find(int from, Predicate<Ev> match, Duration timeout) throws InterruptedException {
    try {
      return Optional.of(await(from, match, timeout));
    } catch (TimeoutException e) {
      return Optional.empty();
    }
  }

  /**
   * leader is the ELECTED event of the candidate that leads now, by the log: elected, not
   * lost since, and its JVM alive; the latest one if the log shows several.
   */
  synchronized Optional<Ev> leader() {
    Map<String, Ev> leading = new HashMap<>();
    for (Ev e : events) {
      String who = e.child().label() + "#" + e.idx();
      if (e.is("ELECTED")) {
        leading.put(who, e);
      } else if (e.is("LOST")) {
        leading.remove(who);
      }
    }
    return leading.values().stream()
        .filter(e -> e.child().isAlive())
        .max((a, b) -> Long.compare(a.nanos(), b.nanos()));
  }

  /** awaitLeader waits until {@link #leader()} names someone. */
  Ev awaitLeader(Duration timeout) throws TimeoutException, InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<Ev> l = leader();
      if (l.isPresent()) {
        return l.get();
      }
      if (System.nanoTime() > end) {
        throw new TimeoutException("no leader within " + timeout);
      }
      synchronized (this) {
        wait(50);
      }
    }
  }

  List<Child> children() {
    return children;
  }

  private synchronized void add(Child c, int idx, long nanos, String type, String detail) {
    events.add(new Ev(c, idx, nanos, type, detail, events.size()));
    notifyAll();
  }

  /** close asks every live child to close, then kills what is still running after 5 s. */
  @Override
  public void close() {
    for (Child c : children) {
      c.sendQuietly("close");
    }
    long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    for (Child c : children) {
      c.waitOrKill(end);
    }
  }

  /** Child is one JVM of the group. */
  final class Child {
    private final String label;
    private final Process process;
    private final Writer stdin;

    private Child(String label, Process process) {
      this.label = label;
      this.process = process;
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(this::read, "bench-child-" + label);
      reader.setDaemon(true);
      reader.start();
    }

    String label() {
      return label;
    }

    long pid() {
      return process.pid();
    }

    boolean isAlive() {
      return process.isAlive();
    }

    /** send writes one command line to the child. */
    void send(String command) throws IOException {
      synchronized (stdin) {
        stdin.write(command + "\n");
        stdin.flush();
      }
    }

    void sendQuietly(String command) {
      try {
        if (process.isAlive()) {
          send(command);
        }
      } catch (IOException e) {
        // The child is gone or closing; waitOrKill deals with it.
      }
    }

    /** kill sends SIGKILL and waits until the process is gone. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }

    /** close asks the child to close and kills it if it has not exited within the timeout. */
    void close(Duration timeout) {
      sendQuietly("close");
      waitOrKill(System.nanoTime() + timeout.toNanos());
    }

    private void waitOrKill(long endNanos) {
      try {
        long left = endNanos - System.nanoTime();
        if (left > 0 && process.waitFor(left, TimeUnit.NANOSECONDS)) {
          return;
        }
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }

    private void read() {
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          parse(line);
        }
      } catch (IOException ended) {
        // The process is gone; its events are kept.
      }
      add(this, -1, System.nanoTime(), "EXITED", "");
    }

    private void parse(String line) {
      String[] f = line.trim().split(" ");
      try {
        if (f[0].equals("E") && f.length >= 4) {
          add(this, Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3], f.length > 4 ? f[4] : "");
          return;
        }
        if (f[0].equals("R") && f.length == 3) {
          add(this, Integer.parseInt(f[1]), Long.parseLong(f[2]), "RESIGN", "");
          return;
        }
        if (f[0].equals("T") && f.length == 3) {
          add(this, -1, Long.parseLong(f[2]), "TRACE", f[1]);
          return;
        }
        if (f[0].equals("READY") || f[0].equals("CLOSED") || f[0].equals("TRACE_END") || f[0].equals("LEADER_KNOWN")
            || f[0].equals("LEADER_UNKNOWN")) {
          add(this, -1, System.nanoTime(), f[0], line);
          return;
        }
      } catch (NumberFormatException e) {
        // Fall through: keep the line as it is.
      }
      add(this, -1, System.nanoTime(), "LINE", line);
    }

    @Override
    public String toString() {
      return label + "(pid " + process.pid() + ")";
    }
  }
}
