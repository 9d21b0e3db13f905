package dev.leasehold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Signals sends SIGSTOP, SIGCONT and the like to a child process through kill(1):
 * ProcessHandle can only send SIGTERM and SIGKILL. Shared by the etcd, mariadbd and postgres launchers.
 *
 * <p>Stateless and thread-safe.
 */
public final class Signals {
  private Signals() {}

  /** send delivers SIG{@code signal} to {@code target}; kill(1) returns once it is queued. */
  public static void send(Process target, String signal) {
    send(signal, List.of(target.pid()));
  }

  /**
   * send delivers SIG{@code signal} to every process in {@code pids} with one kill(1), which fails if any of them
   * is gone: a server's whole process tree stops or continues at once.
   */
  public static void send(String signal, List<Long> pids) {
    String kill = Files.isExecutable(Path.of("/bin/kill")) ? "/bin/kill" : "kill";
    List<String> command = new ArrayList<>();
    command.add(kill);
    command.add("-" + signal);
    pids.forEach(pid -> command.add(Long.toString(pid)));
    try {
      Process killer =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!killer.waitFor(5, TimeUnit.SECONDS)) {
        killer.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + pids + " timed out");
      }
      if (killer.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + pids + " exited with " + killer.exitValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + kill, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal, e);
    }
  }
}
