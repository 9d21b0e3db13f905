package dev.leasehold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * ProcessControl holds the process, file and port chores of the MariaDB and PostgreSQL launchers; stateless and
 * thread-safe.
 *
 * <p>They mirror the private helpers of the etcd launcher's EtcdMember, which are kept there so that the
 * launchers can evolve separately.
 */
public final class ProcessControl {

    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

    private ProcessControl() {}

    /** signal sends SIGSTOP or SIGCONT: ProcessHandle can only send SIGTERM/SIGKILL, so these go through kill(1). */
    public static void signal(Process target, String signal) {
        Signals.send(target, signal);
    }

    /**
     * awaitStopped waits up to 2 s until /proc says the process is (or is no longer) stopped: kill(1) only queues
     * the signal.
     */
    public static void awaitStopped(Process target, boolean stopped) {
        awaitStopped(target.pid(), stopped);
    }

    /** awaitStopped waits as {@link #awaitStopped(Process, boolean)} does, for any process by its id. */
    public static void awaitStopped(long pid, boolean stopped) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        Instant deadline = Instant.now().plusSeconds(2);
        while (Instant.now().isBefore(deadline) && Files.exists(stat)) {
            try {
                String content = Files.readString(stat, StandardCharsets.UTF_8);
                // Field 3 follows the parenthesised command name, which may itself contain spaces.
                char state = content.substring(content.lastIndexOf(')') + 2).charAt(0);
                if ((state == 'T' || state == 't') == stopped) {
                    return;
                }
            } catch (IOException | RuntimeException e) {
                return;
            }
            sleepQuietly(5);
        }
    }

    /** waitFor waits for the process to exit; false on timeout, and never throws. */
    public static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /** runningAsRoot tells whether this JVM runs as uid 0: mariadbd then needs --user=root, and postgres refuses. */
    public static boolean runningAsRoot() {
        try {
            // /proc/self is owned by the process's effective uid.
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** freePort returns a port free on 127.0.0.1 a moment ago; the caller retries if someone else takes it first. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot pick a free port", e);
        }
    }

    /** tail returns the last {@code lines} lines of a log file, or a note saying why there are none. */
    public static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no log file " + file + ")";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /**
     * spawn starts {@code builder}'s command with stdout and stderr appended to {@code logFile}, after a line
     * "=== leasehold launcher: {@code header} at (time)", and closes its stdin: no server program reads it, and an
     * open pipe would live as long as the server.
     */
    public static Process spawn(ProcessBuilder builder, Path logFile, String header) {
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        try {
            Files.writeString(logFile,
                    "=== leasehold launcher: " + header + " at " + Instant.now() + System.lineSeparator(),
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Process started = builder.start();
            started.getOutputStream().close();
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + builder.command().get(0), e);
        }
    }

    /**
     * awaitSuccess waits for a one-shot program (an initialiser, a backup) to exit 0; otherwise it throws with the
     * log's tail, after killing it and everything it forked when it outlived {@code timeout}.
     */
    public static void awaitSuccess(Process process, String program, Path logFile, Duration timeout) {
        if (!waitFor(process, timeout)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            waitFor(process, Duration.ofSeconds(5));
            throw new IllegalStateException(program + " did not finish within " + timeout + "; log " + logFile + ":"
                    + System.lineSeparator() + tail(logFile, 30));
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(program + " exited with code " + process.exitValue() + "; log "
                    + logFile + ":" + System.lineSeparator() + tail(logFile, 30));
        }
    }

    /**
     * keepLog copies a server's log to {@code <dir>/<name>-<time>.log} before its directory goes, for post-mortems;
     * returns the copy, or null when it cannot.
     */
    public static Path keepLog(Path logFile, Path dir, String name) {
        if (!Files.exists(logFile)) {
            return null;
        }
        Path base = dir.toAbsolutePath();
        String stamp = name + "-" + LocalDateTime.now().format(LOG_TIME);
        try {
            Files.createDirectories(base);
            for (int suffix = 1; ; suffix++) {
                Path target = base.resolve((suffix == 1 ? stamp : stamp + "-" + suffix) + ".log");
                try {
                    return Files.copy(logFile, target);
                } catch (FileAlreadyExistsException e) {
                    // Two servers with one name closed in the same millisecond: take the next suffix.
                }
            }
        } catch (IOException e) {
            return null;
        }
    }

    /** deleteTree deletes a directory tree, best effort; returns the first failure or null. */
    public static IOException deleteTree(Path root) {
        if (!Files.exists(root)) {
            return null;
        }
        IOException[] first = new IOException[1];
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // Keep deleting the rest.
                    if (first[0] == null) {
                        first[0] = e;
                    }
                }
            });
        } catch (IOException e) {
            return e;
        } catch (UncheckedIOException e) {
            return e.getCause();
        }
        return first[0];
    }

    /** sleepQuietly sleeps, turning an interrupt into an IllegalStateException with the flag set again. */
    public static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
