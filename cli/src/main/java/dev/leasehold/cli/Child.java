package dev.leasehold.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.IntConsumer;

/**
 * Child is the supervised command of one term, started in a process group of its own and
 * bound to this JVM's life.
 *
 * <p>How it is bound: the command runs as {@code setsid setpriv --pdeathsig KILL -- sh -c GUARD
 * leasehold-guard PID CMD ARGS...}; each of the three execs the next in the same process, so
 * the child's pid is the one this JVM spawned. {@code setsid} makes it the leader of a new
 * session and process group (pgid = pid), which {@link #signal} addresses as a whole.
 * {@code setpriv} sets the parent-death signal (PR_SET_PDEATHSIG), which survives exec: when
 * this JVM dies, SIGKILLed or not, the kernel kills the child. Linux sends it when the
 * <em>thread</em> that spawned the child exits, so the child is spawned from a thread of its
 * own that lives exactly as long as the child (it waits for it). The guard closes the race
 * between spawn and prctl: it execs the command only if its parent is still this JVM.
 *
 * <p>Not covered: grandchildren get no parent-death signal (leasehold kills the group when a
 * term ends, but not when it is SIGKILLed itself), nor does a command that leaves the group
 * (setsid, daemons), and exec of a set-user-ID or file-capability program clears it.
 *
 * <p>Thread-safe: signals may be sent from any thread; the exit is reported once, on the
 * spawning thread.
 */
final class Child {
  // $1 is leasehold's pid; the command follows. PPID is read by the shell at its start, after
  // setpriv's prctl: a parent that died before it shows as another pid (init or a subreaper).
  private static final String GUARD =
      "if [ \"$PPID\" != \"$1\" ]; then echo 'leasehold: parent gone before the child started' >&2;"
          + " exit 125; fi; shift; exec \"$@\"";
  private static final String KILL = resolve("kill");

  private final Process process;
  private final long pid;
  private final long startedNanos;

  private Child(Process process, long startedNanos) {
    this.process = process;
    this.pid = process.pid();
    this.startedNanos = startedNanos;
  }

  /** Tools are the util-linux programs the child is started through, found on PATH. */
  record Tools(String setsid, String setpriv) {
    /** find locates setsid and setpriv, or returns null naming what is missing. */
    static Tools find() {
      String setsid = resolve("setsid");
      String setpriv = resolve("setpriv");
      return setsid == null || setpriv == null ? null : new Tools(setsid, setpriv);
    }
  }

  /**
   * start spawns {@code command} from a new thread that then waits for it and hands its exit
   * code to {@code onExit}; it returns once the child runs in its own process group.
   *
   * @throws IOException if the process cannot be started
   */
  static Child start(Tools tools, List<String> command, Map<String, String> env, IntConsumer onExit)
      throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(
        tools.setsid(), tools.setpriv(), "--pdeathsig", "KILL", "--",
        "/bin/sh", "-c", GUARD, "leasehold-guard", Long.toString(ProcessHandle.current().pid())));
    argv.addAll(command);
    ProcessBuilder pb = new ProcessBuilder(argv).inheritIO();
    pb.environment().putAll(env);
    StoreOptions.scrub(pb.environment());
    CompletableFuture<Child> started = new CompletableFuture<>();
    Thread spawner = new Thread(() -> {
      Process p;
      try {
        p = pb.start();
      } catch (IOException | RuntimeException e) {
        started.completeExceptionally(e);
        return;
      }
      started.complete(new Child(p, System.nanoTime()));
      // This thread must outlive the child: its exit would fire the child's pdeathsig.
      while (true) {
        try {
          onExit.accept(p.waitFor());
          return;
        } catch (InterruptedException e) {
          // Never leave before the child does.
        }
      }
    }, "leasehold-child");
    spawner.setDaemon(true);
    spawner.start();
    try {
      Child child = started.get();
      child.awaitOwnGroup();
      return child;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /**
   * warmUp spawns {@code setpriv --version} once, so that the first term does not pay for
   * loading the JVM's process machinery (hundreds of milliseconds on a cold, loaded JVM).
   */
  static void warmUp(Tools tools) {
    try {
      new ProcessBuilder(tools.setpriv(), "--version")
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor();
    } catch (IOException e) {
      // The real start reports it.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** pid is the child's process id, which is also its process group id. */
  long pid() {
    return pid;
  }

  /** startedNanos is when the spawn returned, on {@link System#nanoTime()}. */
  long startedNanos() {
    return startedNanos;
  }

  /** isAlive tells whether the child process (the group's leader) still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** signal sends {@code signal} (TERM, INT, HUP, KILL...) to the child's whole process group. */
  void signal(String signal) {
    if ("KILL".equals(signal)) {
      // No fork needed for the leader itself: the JVM sends SIGKILL at once.
      process.destroyForcibly();
    }
    killGroup(signal);
  }

  /** killLeftovers SIGKILLs what is left of the group once its leader exited (grandchildren). */
  void killLeftovers() {
    killGroup("KILL");
  }

  private void killGroup(String signal) {
    if (KILL == null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      return;
    }
    try {
      new ProcessBuilder(KILL, "-s", signal, "--", "-" + pid)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor();
    } catch (IOException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // setsid runs right after the exec; until then a group signal would miss the child.
  private void awaitOwnGroup() throws InterruptedException {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    long end = System.nanoTime() + 2_000_000_000L;
    while (process.isAlive() && System.nanoTime() < end) {
      try {
        String s = Files.readString(stat, StandardCharsets.US_ASCII);
        String[] fields = s.substring(s.lastIndexOf(')') + 2).split(" ");
        if (Long.parseLong(fields[2]) == pid) {
          return;
        }
      } catch (IOException | RuntimeException e) {
        return; // Gone already, or no /proc: the exit is reported anyway.
      }
      Thread.sleep(1);
    }
  }

  private static String resolve(String program) {
    String path = System.getenv("PATH");
    List<String> dirs = new ArrayList<>(List.of((path == null ? "" : path).split(File.pathSeparator)));
    dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
    for (String dir : dirs) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    return null;
  }
}
