package dev.leasehold.it.mariadb;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDbServer is one private mariadbd child process on 127.0.0.1, with its own datadir, port and accounts.
 *
 * <p>{@link MariaDbServerBuilder#start()} initialises a fresh datadir with mariadb-install-db, picks a free loopback port and
 * waits until root can run {@code SELECT 1} over TCP. The datadir and port stay fixed across {@link #stop()},
 * {@link #kill()} and {@link #start()}, so committed data survives a crash; {@link #close()} (or the JVM's shutdown
 * hook) kills the process and deletes the datadir, keeping a copy of the server log under
 * {@code target/mariadb-logs}.
 *
 * <p>Thread-safe: operations that change the process (start, stop, kill, restart, pause, resume, close) are
 * synchronized; the query methods read volatile state and never block; {@link #sql} and {@link #createUser} open
 * their own connection per call; {@link #close()} is idempotent and never throws.
 */
public final class MariaDbServer implements AutoCloseable {

    /** DATABASE is the schema created at initialisation, the one {@link #jdbcUrl()} points at. */
    public static final String DATABASE = "leasehold";

    private static final Logger log = LoggerFactory.getLogger(MariaDbServer.class);
    private static final String ROOT_USER = "root";
    static final String ROOT_PASSWORD = "leasehold-root";
    static final Duration INSTALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 30;
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_]{1,80}");

    private final String name;
    private final Path dataDir;
    final Path logFile;
    private final Path mariadbd;
    private final List<String> options;

    // Volatile so that the query methods and the shutdown hook never need the lock.
    private volatile int port;
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    MariaDbServer(String name, Path dataDir, Path mariadbd, List<String> options) {
        this.name = name;
        this.dataDir = dataDir;
        this.logFile = dataDir.resolve("mariadbd.log");
        this.mariadbd = mariadbd;
        this.options = List.copyOf(options);
    }

    /** builder returns a builder for a server named "mariadb" with the launcher's test settings. */
    public static MariaDbServerBuilder builder() {
        return new MariaDbServerBuilder();
    }

    /** name returns the server's name, used in log lines and in the kept log's file name. */
    public String name() {
        return name;
    }

    /** port returns the TCP port on 127.0.0.1, fixed for the server's life. */
    public int port() {
        return port;
    }

    /** jdbcUrl returns {@code jdbc:mariadb://127.0.0.1:<port>/leasehold}, without options: append {@code ?...}. */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE;
    }

    /** rootUser returns the name of the all-privileged account reachable over TCP. */
    public String rootUser() {
        return ROOT_USER;
    }

    /** rootPassword returns the root account's password, the same for every server. */
    public String rootPassword() {
        return ROOT_PASSWORD;
    }

    /** pid returns the mariadbd process id, or -1 when the server is not running. */
    public long pid() {
        Process current = process;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** isRunning tells whether mariadbd is alive, paused or not. */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** isPaused tells whether mariadbd is stopped with SIGSTOP and not yet resumed. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /** dataDir returns the datadir, which also holds the socket, pid and log files; close deletes it. */
    public Path dataDir() {
        return dataDir;
    }

    /** logFile returns the file that receives install-db's and mariadbd's output across all restarts. */
    public Path logFile() {
        return logFile;
    }

    /** logTail returns the last {@code lines} lines of the log, for failure messages. */
    public String logTail(int lines) {
        return ProcessControl.tail(logFile, lines);
    }

    /**
     * start launches a stopped or killed server again on the same datadir and port and waits until it answers.
     *
     * @throws IllegalStateException if it is running or closed, or does not answer within 30 s (for instance
     *     because another process took the port meanwhile); the message carries the log's tail
     */
    public synchronized void start() {
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

    /** stop sends SIGTERM (after SIGCONT if paused) and waits up to 30 s for a clean shutdown before SIGKILL. */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        // A stopped process keeps SIGTERM pending until it runs again.
        continueIfPaused(current);
        current.destroy();
        if (!ProcessControl.waitFor(current, STOP_GRACE)) {
            log.warn("{}: no clean shutdown within {} of SIGTERM, sending SIGKILL", name, STOP_GRACE);
            killAndWait(current);
        }
        log.info("{}: stopped (pid {})", name, current.pid());
    }

    /** kill sends SIGKILL, a crash without shutdown, and returns once the process is gone; no-op when not running. */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        killAndWait(current);
        paused = false;
        log.info("{}: killed (pid {})", name, current.pid());
    }

    /** restart stops the server cleanly if it runs, then {@link #start()}s it on the same datadir and port. */
    public synchronized void restart() {
        stop();
        start();
    }

    /** pause sends SIGSTOP: sockets stay open and the kernel still accepts connections, but nothing answers. */
    public synchronized void pause() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(name + ": cannot pause, not running");
        }
        if (paused) {
            return;
        }
        ProcessControl.signal(current, "STOP");
        paused = true;
        ProcessControl.awaitStopped(current, true);
        log.info("{}: paused (pid {})", name, current.pid());
    }

    /** resume sends SIGCONT to a paused server; a no-op when it is not paused. */
    public synchronized void resume() {
        Process current = process;
        if (current == null || !current.isAlive() || !paused) {
            paused = false;
            return;
        }
        ProcessControl.signal(current, "CONT");
        paused = false;
        ProcessControl.awaitStopped(current, false);
        log.info("{}: resumed (pid {})", name, current.pid());
    }

    /**
     * sql runs one statement as root on a fresh connection (10 s socket timeout) and returns the rows as strings.
     *
     * <p>For admin work such as {@code KILL <id>}, {@code SET GLOBAL ...} or reading {@code information_schema};
     * statements without a result set return an empty list, SQL NULL becomes {@code null}.
     *
     * @throws IllegalStateException wrapping the SQLException when the statement fails or the server is down
     */
    public List<List<String>> sql(String statement) {
        try {
            return MariaDbJdbc.rows(jdbcUrl(), ROOT_USER, ROOT_PASSWORD, Duration.ofSeconds(10), statement);
        } catch (SQLException e) {
            throw new IllegalStateException(name + ": '" + statement + "' failed: " + e.getMessage(), e);
        }
    }

    /**
     * createUser creates {@code 'user'@'%'} with the password and runs {@code GRANT <grant> TO} it for each grant,
     * for example {@code "SELECT, INSERT, UPDATE, DELETE ON leasehold.*"}.
     *
     * @throws IllegalArgumentException if the user name is not 1 to 80 letters, digits or underscores
     * @throws IllegalStateException wrapping the SQLException when the server refuses
     */
    public void createUser(String user, String password, String... grants) {
        if (user == null || !USER.matcher(user).matches()) {
            throw new IllegalArgumentException("user must match " + USER + ", but was " + user);
        }
        String account = "'" + user + "'@'%'";
        sql("CREATE USER " + account + " IDENTIFIED BY " + MariaDbJdbc.quote(password));
        for (String grant : grants) {
            sql("GRANT " + grant + " TO " + account);
        }
    }

    /**
     * close kills the server (SIGTERM, SIGKILL after 2 s), keeps a copy of its log and deletes the datadir.
     *
     * <p>Idempotent and never throws; synchronized, so it waits for a start in progress instead of missing the
     * process that start launches.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            continueIfPaused(current);
            current.destroy();
            if (!ProcessControl.waitFor(current, CLOSE_GRACE)) {
                current.destroyForcibly();
                ProcessControl.waitFor(current, Duration.ofSeconds(10));
            }
        }
        paused = false;
        Path kept = ProcessControl.keepLog(logFile, Path.of("target", "mariadb-logs"), name);
        IOException failure = ProcessControl.deleteTree(dataDir);
        if (failure != null) {
            log.warn("{}: cannot delete datadir {}: {}", name, dataDir, failure.toString());
        }
        MariaDbReaper.unregister(this);
        log.info("{}: closed{}", name, kept == null ? "" : "; log kept in " + kept);
    }

    /** toString returns the name, port and process state for failure messages. */
    @Override
    public String toString() {
        String state = !isRunning() ? "not running" : (isPaused() ? "paused" : "running") + " pid " + pid();
        return "MariaDbServer[" + name + ", 127.0.0.1:" + port + ", " + state + ", " + dataDir + "]";
    }

    // ---- package-private, used by MariaDbReaper ----

    /** Shutdown-hook path: no locks, no graceful stop, because the JVM is going away. */
    void reap() {
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            // SIGKILL reaches SIGSTOPped processes too.
            current.destroyForcibly();
            ProcessControl.waitFor(current, Duration.ofSeconds(2));
        }
        ProcessControl.deleteTree(dataDir);
    }

    // ---- internals ----

    /** First start: install-db has run; retry on a fresh port when the one picked was taken before mariadbd bound it. */
    void firstStart(Instant installBegan) {
        Instant began = Instant.now();
        for (int attempt = 1; ; attempt++) {
            port = ProcessControl.freePort();
            String problem = launchAndAwait("start, attempt " + attempt);
            if (problem == null) {
                log.info("{}: up on 127.0.0.1:{} (pid {}) after install-db {} ms + start {} ms; datadir {}", name,
                        port, pid(), Duration.between(installBegan, began).toMillis(),
                        Duration.between(began, Instant.now()).toMillis(), dataDir);
                return;
            }
            kill();
            String tail = logTail(LOG_TAIL_LINES);
            boolean portTaken =
                    tail.contains("Address already in use") || tail.contains("Do you already have another");
            if (!portTaken || attempt >= START_ATTEMPTS) {
                throw new IllegalStateException(name + ": " + problem + " (attempt " + attempt + "); log " + logFile
                        + ":" + System.lineSeparator() + tail);
            }
            log.warn("{}: port {} was taken before mariadbd bound it, retrying on another", name, port);
        }
    }

    /** Launches mariadbd and returns null once root can run SELECT 1, else what went wrong. */
    private String launchAndAwait(String reason) {
        List<String> command = new ArrayList<>();
        command.add(mariadbd.toString());
        command.addAll(MariaDbSettings.serverFlags(dataDir, port));
        command.addAll(options);
        Process started = MariaDbSettings.spawn(command, logFile, reason + " " + name);
        process = started;
        paused = false;
        MariaDbReaper.register(this);
        return MariaDbJdbc.awaitAnswer(started, jdbcUrl(), ROOT_USER, ROOT_PASSWORD, START_TIMEOUT);
    }

    private void killAndWait(Process current) {
        current.destroyForcibly();
        if (!ProcessControl.waitFor(current, Duration.ofSeconds(10))) {
            throw new IllegalStateException(name + ": pid " + current.pid() + " still alive 10 s after SIGKILL");
        }
    }

    private void continueIfPaused(Process current) {
        if (paused) {
            try {
                ProcessControl.signal(current, "CONT");
            } catch (RuntimeException e) {
                log.warn("{}: SIGCONT failed: {}", name, e.toString());
            }
            paused = false;
        }
    }
}
