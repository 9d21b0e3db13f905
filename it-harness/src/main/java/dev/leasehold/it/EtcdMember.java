package dev.leasehold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdMember is one etcd process of an {@link EtcdCluster}, with fixed name, ports and data dir across restarts.
 *
 * <p>Thread-safe: operations that change the process (start, stop, kill, pause, resume) are synchronized per member;
 * the query methods read volatile state and never block.
 */
public final class EtcdMember {

    private static final Logger log = LoggerFactory.getLogger(EtcdMember.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final EtcdCluster cluster;
    private final String name;
    private final int clientPort;
    private final int peerPort;
    private final Path dataDir;
    private final Path logFile;
    private final List<String> command;

    // Volatile so that isRunning/isPaused/pid, the cluster's quorum check and the shutdown hook never need the lock.
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    EtcdMember(EtcdCluster cluster, String name, int clientPort, int peerPort, Path dataDir, Path logFile,
            List<String> command) {
        this.cluster = cluster;
        this.name = name;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.command = List.copyOf(command);
    }

    /** name returns the etcd member name, {@code <cluster>-<index>}. */
    public String name() {
        return name;
    }

    /** clientEndpoint returns {@code http://127.0.0.1:<clientPort>}, or {@code https://...} in a TLS cluster. */
    public String clientEndpoint() {
        return cluster.clientScheme() + "://127.0.0.1:" + clientPort;
    }

    /** clientPort returns the TCP port etcd serves clients (gRPC and HTTP) on. */
    public int clientPort() {
        return clientPort;
    }

    /** peerPort returns the TCP port etcd listens on for raft peer traffic. */
    public int peerPort() {
        return peerPort;
    }

    /** pid returns the current process id, or -1 when the member is not running. */
    public long pid() {
        Process current = process;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** isRunning tells whether the etcd process is alive, paused or not. */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** isPaused tells whether the process is stopped with SIGSTOP and not yet resumed. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /** kill sends SIGKILL and returns once the process is gone; a no-op when not running. */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        current.destroyForcibly();
        awaitExit(current, STOP_GRACE);
        paused = false;
        log.info("{}: killed (pid {})", name, current.pid());
    }

    /** stop sends SIGTERM and waits up to 10 s for a clean exit before falling back to SIGKILL. */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        // A stopped process keeps SIGTERM pending forever, so it has to run again to act on it.
        continueIfPaused(current);
        current.destroy();
        boolean exited = waitFor(current, STOP_GRACE);
        if (!exited) {
            log.warn("{}: did not exit within {} of SIGTERM, sending SIGKILL", name, STOP_GRACE);
            current.destroyForcibly();
            awaitExit(current, STOP_GRACE);
        }
        log.info("{}: stopped (pid {})", name, current.pid());
    }

    /**
     * start restarts a stopped or killed member with the same name, ports and data dir.
     *
     * <p>It returns once /health answers with any HTTP response; when the running members cannot form a quorum with
     * this one it returns as soon as the client port accepts TCP, because etcd 3.4 does not serve any HTTP request
     * before the member has published itself through raft.
     *
     * @throws IllegalStateException if the member is running, the cluster is closed, or etcd exits or does not listen
     *     within 30 s
     */
    public synchronized void start() {
        startAs("restart");
    }

    /** startJoining starts a member the cluster just added (see {@link EtcdCluster#addMember}) for the first time. */
    synchronized void startJoining() {
        startAs("join");
    }

    private void startAs(String reason) {
        if (closed) {
            throw new IllegalStateException(name + ": closed (the cluster closed or the member removed)");
        }
        if (isRunning()) {
            throw new IllegalStateException(name + ": already running (pid " + pid() + ")");
        }
        launch(reason);
        awaitServing(process);
    }

    /** pause sends SIGSTOP, freezing the member without closing its sockets, like a long GC pause or a hung VM. */
    public synchronized void pause() {
        Process current = requireRunning("pause");
        if (paused) {
            return;
        }
        signal(current, "STOP");
        paused = true;
        awaitProcState(current, true);
        log.info("{}: paused (pid {})", name, current.pid());
    }

    /** resume sends SIGCONT to a paused member; a no-op when it is not paused. */
    public synchronized void resume() {
        Process current = process;
        if (current == null || !current.isAlive() || !paused) {
            paused = false;
            return;
        }
        signal(current, "CONT");
        paused = false;
        awaitProcState(current, false);
        log.info("{}: resumed (pid {})", name, current.pid());
    }

    /** dataDir returns the member's data directory, which survives restarts and is deleted by the cluster's close. */
    public Path dataDir() {
        return dataDir;
    }

    /** logFile returns the file that receives the member's stdout and stderr across all restarts. */
    public Path logFile() {
        return logFile;
    }

    /** toString returns the name, ports and process state for failure messages. */
    @Override
    public String toString() {
        String state = !isRunning() ? "not running" : (isPaused() ? "paused" : "running") + " pid " + pid();
        return name + "[client " + clientPort + ", peer " + peerPort + ", " + state + "]";
    }

    // ---- package-private lifecycle used by EtcdCluster and EtcdReaper ----

    synchronized void launch(String reason) {
        List<String> fullCommand = new ArrayList<>(command);
        ProcessBuilder builder = new ProcessBuilder(fullCommand)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Map<String, String> environment = builder.environment();
        // etcd reads ETCD_* variables as flags and refuses to start when one conflicts with a command-line flag;
        // ETCD_BIN (our own setting) or a developer's ETCD_DATA_DIR must not leak into the child.
        environment.keySet().removeIf(key -> key.startsWith("ETCD_"));
        try {
            Files.writeString(logFile,
                    "=== leasehold launcher: " + reason + " " + name + " at " + Instant.now() + ": "
                            + String.join(" ", fullCommand) + System.lineSeparator(),
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Process started = builder.start();
            // etcd never reads stdin; closing our end keeps no pipe open for the member's whole lifetime.
            started.getOutputStream().close();
            process = started;
            paused = false;
            EtcdReaper.register(this);
            log.debug("{}: started pid {} ({})", name, started.pid(), reason);
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot start " + fullCommand.get(0), e);
        }
    }

    /** Sends SIGTERM (after SIGCONT) without waiting, so that close() can stop all members in parallel. */
    void beginClose() {
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            continueIfPaused(current);
            current.destroy();
        }
    }

    /** Waits for the SIGTERM sent by beginClose until the deadline, then SIGKILLs; never throws. */
    void finishClose(Instant deadline) {
        Process current = process;
        if (current != null) {
            long remaining = Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
            if (!waitFor(current, Duration.ofMillis(remaining))) {
                current.destroyForcibly();
                waitFor(current, Duration.ofSeconds(5));
            }
        }
        paused = false;
        deleteDataDir();
        EtcdReaper.unregister(this);
    }

    /** Shutdown-hook path: no locks, no graceful stop, because the JVM is going away. */
    void reap() {
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            // SIGKILL is delivered to SIGSTOPped processes too, so no SIGCONT is needed here.
            current.destroyForcibly();
            waitFor(current, Duration.ofSeconds(2));
        }
        deleteDataDir();
    }

    boolean hasExited() {
        Process current = process;
        return current != null && !current.isAlive();
    }

    String logTail(int lines) {
        try {
            if (!Files.exists(logFile)) {
                return "(no log file " + logFile + ")";
            }
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            List<String> tail = all.subList(Math.max(0, all.size() - lines), all.size());
            return String.join(System.lineSeparator(), tail);
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }

    // ---- internals ----

    private void awaitServing(Process started) {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        boolean quorumExpected = cluster.quorumAvailableWith(this);
        boolean listening = false;
        while (Instant.now().isBefore(deadline)) {
            if (!started.isAlive()) {
                throw new IllegalStateException(name + ": etcd exited with code " + started.exitValue()
                        + " while starting; log " + logFile + ":" + System.lineSeparator() + logTail(30));
            }
            if (!listening) {
                listening = EtcdHttp.listens(clientPort, 200);
            }
            if (listening) {
                if (!quorumExpected) {
                    log.info("{}: restarted (pid {}), listening; no quorum reachable, so it cannot serve yet",
                            name, started.pid());
                    return;
                }
                // A generous per-request timeout: right after a restart /health can block while raft catches up.
                if (EtcdHttp.health(cluster.http(), clientEndpoint(), Duration.ofSeconds(2)).answered()) {
                    log.info("{}: restarted (pid {}), answering /health", name, started.pid());
                    return;
                }
            }
            sleepQuietly(50);
        }
        if (listening) {
            // It listens, which is the documented minimum; a quorum member may itself be unreachable (chaos tests).
            log.warn("{}: restarted (pid {}) and listening, but /health did not answer within {}",
                    name, started.pid(), START_TIMEOUT);
            return;
        }
        throw new IllegalStateException(name + ": did not listen on " + clientPort + " within " + START_TIMEOUT
                + "; log " + logFile + ":" + System.lineSeparator() + logTail(30));
    }

    private Process requireRunning(String operation) {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(name + ": cannot " + operation + ", not running");
        }
        return current;
    }

    private void continueIfPaused(Process current) {
        if (paused) {
            try {
                signal(current, "CONT");
            } catch (RuntimeException e) {
                log.warn("{}: SIGCONT failed: {}", name, e.toString());
            }
            paused = false;
        }
    }

    // ProcessHandle can only send SIGTERM/SIGKILL, so STOP and CONT go through the kill(1) utility.
    private static void signal(Process target, String signal) {
        Signals.send(target, signal);
    }

    // kill(1) returns once the signal is queued; waiting for the scheduler state makes isPaused() a fact, not a hope.
    private static void awaitProcState(Process target, boolean stopped) {
        Path stat = Path.of("/proc", Long.toString(target.pid()), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        Instant deadline = Instant.now().plusSeconds(2);
        while (Instant.now().isBefore(deadline) && target.isAlive()) {
            try {
                String content = Files.readString(stat, StandardCharsets.UTF_8);
                // Field 3 follows the parenthesised command name, which may itself contain spaces.
                String afterName = content.substring(content.lastIndexOf(')') + 2);
                char state = afterName.charAt(0);
                boolean isStopped = state == 'T' || state == 't';
                if (isStopped == stopped) {
                    return;
                }
            } catch (IOException | RuntimeException e) {
                return;
            }
            sleepQuietly(5);
        }
    }

    private void awaitExit(Process current, Duration timeout) {
        if (!waitFor(current, timeout)) {
            throw new IllegalStateException(name + ": pid " + current.pid() + " still alive after " + timeout);
        }
    }

    private static boolean waitFor(Process current, Duration timeout) {
        try {
            return current.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !current.isAlive();
        }
    }

    private void deleteDataDir() {
        if (!Files.exists(dataDir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dataDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // Keep deleting the rest; a leftover temp file is harmless.
                }
            });
        } catch (IOException | UncheckedIOException e) {
            log.warn("{}: cannot delete data dir {}: {}", name, dataDir, e.toString());
        }
    }

    static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
