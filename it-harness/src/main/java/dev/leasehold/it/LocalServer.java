package dev.leasehold.it;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * LocalServer is one private server child process on 127.0.0.1, on a port fixed for its life, in a directory of its
 * own: the lifecycle the MariaDB, PostgreSQL and PgBouncer launchers share. It starts on a free port (another one
 * when the port was taken before the program bound it), starts again after a stop or a kill, pauses and resumes,
 * and at close (or at JVM exit, through a shutdown hook) ends the process, keeps a copy of its log under
 * {@code target/} and deletes its directory.
 *
 * <p>Each launcher says how its program is launched, found ready, shut down, killed, frozen and ended for good.
 *
 * <p>Thread-safe: operations that change the process (start, stop, kill, restart, pause, resume, close) are
 * synchronized; the query methods read volatile state and never block; {@link #close()} is idempotent and never
 * throws.
 */
public abstract class LocalServer implements AutoCloseable {

    /** LOG_TAIL_LINES is how much of the log a failure message quotes. */
    protected static final int LOG_TAIL_LINES = 30;
    private static final int START_ATTEMPTS = 3;
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Path dir;
    private final Path logFile;
    private final Path keptLogs;
    private final Logger log;

    // Volatile so that the query methods and the shutdown hook never need the lock.
    private volatile int port;
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    /**
     * LocalServer sets up a server that is not started: {@code dir} is deleted at close, {@code logFile} receives
     * the program's output and is copied to {@code keptLogs} first, {@code log} gets the lifecycle's lines.
     */
    protected LocalServer(String name, Path dir, Path logFile, Path keptLogs, Logger log) {
        this.name = name;
        this.dir = dir;
        this.logFile = logFile;
        this.keptLogs = keptLogs;
        this.log = log;
    }

    /** name returns the server's name, used in log lines and in the kept log's file name. */
    public final String name() {
        return name;
    }

    /** port returns the TCP port on 127.0.0.1, fixed for the server's life. */
    public final int port() {
        return port;
    }

    /** pid returns the server's process id, or -1 when it is not running. */
    public final long pid() {
        Process current = process;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** isRunning tells whether the server's process is alive, paused or not. */
    public final boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** isPaused tells whether the server is stopped with SIGSTOP and not yet resumed. */
    public final boolean isPaused() {
        return paused && isRunning();
    }

    /** logFile returns the file that receives the server's output across all restarts. */
    public final Path logFile() {
        return logFile;
    }

    /** logTail returns the last {@code lines} lines of the log, for failure messages. */
    public final String logTail(int lines) {
        return ProcessControl.tail(logFile, lines);
    }

    /**
     * start launches a stopped or killed server again on the same port (and data) and waits until it is ready.
     *
     * @throws IllegalStateException if it is running or closed, or is not ready in time (for instance because
     *     another process took the port meanwhile); the message carries the log's tail
     */
    public final synchronized void start() {
        if (closed) {
            throw new IllegalStateException(name + ": closed");
        }
        if (isRunning()) {
            throw new IllegalStateException(name + ": already running (pid " + pid() + ")");
        }
        Instant began = Instant.now();
        String problem = launchAndAwait("restart");
        if (problem != null) {
            kill();
            throw new IllegalStateException(name + ": " + problem + "; log " + logFile + ":"
                    + System.lineSeparator() + logTail(LOG_TAIL_LINES));
        }
        log.info("{}: started again on 127.0.0.1:{} (pid {}) in {} ms", name, port, pid(),
                Duration.between(began, Instant.now()).toMillis());
    }

    /** stop shuts the server down cleanly (see each launcher) and kills it if it does not end in time. */
    public final synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        // A stopped process keeps the signal pending until it runs again.
        continueIfPaused(current);
        if (!shutDown(current)) {
            log.warn("{}: no clean shutdown in time, killing it", name);
            killHard(current);
        }
        log.info("{}: stopped (pid {})", name, current.pid());
    }

    /** kill sends SIGKILL, a crash without shutdown, and returns once the server is gone; no-op when not running. */
    public final synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        killHard(current);
        paused = false;
        log.info("{}: killed (pid {})", name, current.pid());
    }

    /** restart stops the server cleanly if it runs, then {@link #start()}s it on the same port. */
    public final synchronized void restart() {
        stop();
        start();
    }

    /** pause sends SIGSTOP: sockets stay open and the kernel still accepts connections, but nothing answers. */
    public final synchronized void pause() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(name + ": cannot pause, not running");
        }
        if (paused) {
            return;
        }
        freeze(current);
        paused = true;
        log.info("{}: paused (pid {})", name, current.pid());
    }

    /** resume sends SIGCONT to a paused server; a no-op when it is not paused. */
    public final synchronized void resume() {
        Process current = process;
        if (current == null || !current.isAlive() || !paused) {
            paused = false;
            return;
        }
        thaw(current);
        paused = false;
        log.info("{}: resumed (pid {})", name, current.pid());
    }

    /**
     * close ends the server for good, keeps a copy of its log and deletes its directory.
     *
     * <p>Idempotent and never throws; synchronized, so it waits for a start in progress instead of missing the
     * process that start launches.
     */
    @Override
    public final synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            continueIfPaused(current);
        }
        try {
            end(current, closeGrace());
        } catch (RuntimeException e) {
            log.warn("{}: cannot end it cleanly: {}", name, e.toString());
        }
        paused = false;
        Path kept = ProcessControl.keepLog(logFile, keptLogs, name);
        IOException failure = ProcessControl.deleteTree(dir);
        if (failure != null) {
            log.warn("{}: cannot delete {}: {}", name, dir, failure.toString());
        }
        LocalServerReaper.unregister(this);
        log.info("{}: closed{}", name, kept == null ? "" : "; log kept in " + kept);
    }

    /** toString returns the kind, name, port, process state and directory for failure messages. */
    @Override
    public String toString() {
        String state = !isRunning() ? "not running" : (isPaused() ? "paused" : "running") + " pid " + pid();
        return getClass().getSimpleName() + "[" + name + ", 127.0.0.1:" + port + ", " + state + ", " + dir + "]";
    }

    // ---- for the launchers ----

    /**
     * startOnFreePort is the first start: it picks a free port and launches, and when the port was taken before the
     * program bound it, tries another, up to three times; {@code setUpBegan} is when preparing the directory began,
     * for the log line.
     *
     * @throws IllegalStateException when the server does not become ready; the message carries the log's tail
     */
    protected final synchronized void startOnFreePort(Instant setUpBegan) {
        Instant began = Instant.now();
        for (int attempt = 1; ; attempt++) {
            port = ProcessControl.freePort();
            String problem = launchAndAwait("start, attempt " + attempt);
            if (problem == null) {
                log.info("{}: up on 127.0.0.1:{} (pid {}) after set-up {} ms + start {} ms; {}", name, port, pid(),
                        Duration.between(setUpBegan, began).toMillis(),
                        Duration.between(began, Instant.now()).toMillis(), dir);
                return;
            }
            kill();
            String tail = logTail(LOG_TAIL_LINES);
            if (!portTaken(tail) || attempt >= START_ATTEMPTS) {
                throw new IllegalStateException(name + ": " + problem + " (attempt " + attempt + "); log " + logFile
                        + ":" + System.lineSeparator() + tail);
            }
            log.warn("{}: port {} was taken before the server bound it, retrying on another", name, port);
        }
    }

    /** process returns the process last launched, alive or not, or null before the first launch. */
    protected final Process process() {
        return process;
    }

    /** launch starts the program on {@link #port()}; {@code reason} goes into the log's header line. */
    protected abstract Process launch(String reason);

    /** awaitReady waits until the launched program serves, and returns null, or else what went wrong. */
    protected abstract String awaitReady(Process started);

    /** portTaken tells from the log's tail whether the program failed because its port was taken. */
    protected boolean portTaken(String logTail) {
        return logTail.contains("Address already in use");
    }

    /** shutDown asks the process to end cleanly and waits; false when it has not ended in time. */
    protected abstract boolean shutDown(Process current);

    /** killHard sends SIGKILL and returns once the process is gone. */
    protected void killHard(Process current) {
        current.destroyForcibly();
        if (!ProcessControl.waitFor(current, KILL_WAIT)) {
            throw new IllegalStateException(name + ": pid " + current.pid() + " still alive " + KILL_WAIT
                    + " after SIGKILL");
        }
    }

    /** freeze stops the process with SIGSTOP and returns once the kernel says so. */
    protected void freeze(Process current) {
        ProcessControl.signal(current, "STOP");
        ProcessControl.awaitStopped(current, true);
    }

    /** thaw lets a frozen process run again with SIGCONT. */
    protected void thaw(Process current) {
        ProcessControl.signal(current, "CONT");
        ProcessControl.awaitStopped(current, false);
    }

    /**
     * end ends the server for good, at close or at JVM exit, allowing it {@code grace} to go quietly; the process
     * may be null or gone already (after a kill), and a paused one has been continued.
     */
    protected void end(Process current, Duration grace) {
        if (current == null || !current.isAlive()) {
            return;
        }
        current.destroy();
        if (!ProcessControl.waitFor(current, grace)) {
            current.destroyForcibly();
            ProcessControl.waitFor(current, KILL_WAIT);
        }
    }

    /** closeGrace is how long {@link #close()} lets the server go quietly before killing it; 2 s. */
    protected Duration closeGrace() {
        return Duration.ofSeconds(2);
    }

    // ---- internals ----

    /** Shutdown-hook path: no lock, a short grace, because the JVM is going away. */
    final void reap() {
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            continueIfPaused(current);
        }
        end(current, Duration.ofSeconds(2));
        ProcessControl.deleteTree(dir);
    }

    private String launchAndAwait(String reason) {
        Process started = launch(reason + " " + name);
        process = started;
        paused = false;
        LocalServerReaper.register(this);
        return awaitReady(started);
    }

    private void continueIfPaused(Process current) {
        if (paused) {
            try {
                thaw(current);
            } catch (RuntimeException e) {
                log.warn("{}: SIGCONT failed: {}", name, e.toString());
            }
            paused = false;
        }
    }
}
