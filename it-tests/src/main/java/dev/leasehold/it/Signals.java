package dev.leasehold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Signals sends SIGSTOP, SIGCONT and the like to a child process through kill(1):
 * ProcessHandle can only send SIGTERM and SIGKILL. Shared by the etcd and mariadbd launchers.
 *
 * <p>Stateless and thread-safe.
 */
public final class Signals {
  private Signals() {}

  /** send delivers SIG{@code signal} to {@code target}; kill(1) returns once it is queued. */
  public static void send(Process target, String signal) {
    String kill = Files.isExecutable(Path.of("/bin/kill")) ? "/bin/kill" : "kill";
    try {
      Process killer =
          new ProcessBuilder(kill, "-" + signal, Long.toString(target.pid()))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!killer.waitFor(5, TimeUnit.SECONDS)) {
        killer.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + target.pid() + " timed out");
      }
      if (killer.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + target.pid() + " exited with " + killer.exitValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + kill, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal, e);
    }
  }
}
