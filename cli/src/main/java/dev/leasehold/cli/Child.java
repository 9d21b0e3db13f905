package dev.leasehold.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.IntConsumer;

/**
 * Child is the supervised command of one term, started under a {@link Guard} in a process group
 * of its own and bound to this JVM's life.
 *
 * <p>The process this JVM spawns carries the parent-death signal (see {@link Guard}). Linux
 * sends it when the <em>thread</em> that spawned the process exits, so the process is spawned
 * from a thread of its own that lives exactly as long as it (it waits for it).
 *
 * <p>The group {@link #signal} addresses is the command's: under tree kill, the one the PID
 * namespace's init leads (the spawned process is unshare, outside it); otherwise the spawned
 * process's own, since it is the command.
 *
 * <p>Thread-safe: signals may be sent from any thread; the exit is reported once, on the
 * spawning thread.
 */
final class Child {
  private static final String KILL = Guard.resolve("kill");
  private static final long GROUP_WAIT_NANOS = 2_000_000_000L;
  private static final long TREE_WAIT_NANOS = 5_000_000_000L;

  private final Process process;
  private final boolean treeKill;
  // The group's id: the spawned process's pid until awaitGroup finds the command's group.
  private volatile long group;

  private Child(Process process, boolean treeKill) {
    this.process = process;
    this.treeKill = treeKill;
    this.group = process.pid();
  }

  /**
   * start spawns {@code command} under {@code guard} from a new thread that then waits for it
   * and hands its exit code to {@code onExit}; it returns once the command's process group
   * exists, so that {@link #signal} reaches it.
   *
   * @throws IOException if the process cannot be started
   */
  static Child start(Guard guard, List<String> command, Map<String, String> env, IntConsumer onExit)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(guard.argv(command)).inheritIO();
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
      started.complete(new Child(p, guard.treeKill()));
      // This thread must outlive the process: its exit would fire the parent-death signal.
      while (true) {
        try {
          onExit.accept(p.waitFor());
          return;
        } catch (InterruptedException e) {
          // Never leave before the process does.
        }
      }
    }, "leasehold-child");
    spawner.setDaemon(true);
    spawner.start();
    try {
      Child child = started.get();
      child.awaitGroup();
      return child;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /** pid is the id of the command's process group (and of its leader). */
  long pid() {
    return group;
  }

  /** signal sends {@code signal} (TERM, INT, HUP, KILL...) to the command's process group. */
  void signal(String signal) {
    if ("KILL".equals(signal)) {
      // First the spawned process (no fork needed: the JVM sends SIGKILL at once). Under tree
      // kill that is unshare, whose death takes the namespace with it; its exit then reads as
      // SIGKILL (137), where an init killed first would make it exit 1 (it cannot re-raise a
      // SIGKILL).
      process.destroyForcibly();
    }
    killGroup(signal);
  }

  /**
   * killLeftovers makes sure nothing of the command's tree is left once the spawned process
   * exited. Under tree kill the kernel kills the namespace when its init dies, and unshare exits
   * after it, unless unshare itself was killed: then this waits for the init (bounded). Otherwise
   * it SIGKILLs what is left of the process group (children that stayed in it).
   *
   * @return false if the tree may not be gone yet (tree kill: the init still there after 5 s)
   */
  boolean killLeftovers() throws InterruptedException {
    if (!treeKill) {
      killGroup("KILL");
      return true;
    }
    long leader = pid();
    long end = System.nanoTime() + TREE_WAIT_NANOS;
    while (running(leader)) {
      if (System.nanoTime() > end) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  private void killGroup(String signal) {
    long pgid = pid();
    if (KILL == null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      return;
    }
    try {
      new ProcessBuilder(KILL, "-s", signal, "--", "-" + pgid)
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

  // setsid runs right after an exec (tree kill: in the process unshare forks); until then a
  // group signal would miss the command.
  private void awaitGroup() throws InterruptedException {
    if (!Files.isDirectory(Path.of("/proc/self"))) {
      return; // No /proc: nothing to wait on; the exit is reported anyway.
    }
    long end = System.nanoTime() + GROUP_WAIT_NANOS;
    while (process.isAlive() && System.nanoTime() < end) {
      for (long pid : treeKill ? children() : List.of(process.pid())) {
        OptionalLong pgid = processGroup(pid);
        if (pgid.isPresent() && pgid.getAsLong() == pid) {
          group = pid;
          return;
        }
      }
      Thread.sleep(1);
    }
  }

  // unshare's children: its one thread's list, which is much cheaper than a scan of all /proc.
  private List<Long> children() {
    String pid = Long.toString(process.pid());
    try {
      String list = Files.readString(Path.of("/proc", pid, "task", pid, "children"), StandardCharsets.US_ASCII).strip();
      return list.isEmpty() ? List.of() : Arrays.stream(list.split(" ")).map(Long::valueOf).toList();
    } catch (IOException | RuntimeException e) {
      return process.children().map(ProcessHandle::pid).toList(); // A kernel without CONFIG_PROC_CHILDREN.
    }
  }

  private static OptionalLong processGroup(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      String[] fields = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return OptionalLong.of(Long.parseLong(fields[2]));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  // Present in /proc and not a zombie: a dead init's namespace is empty.
  private static boolean running(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      char state = s.charAt(s.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
