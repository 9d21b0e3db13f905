package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import dev.leasehold.it.Signals;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgresServer is one private postgres child process on 127.0.0.1, with its own data directory, socket directory,
 * port and superuser.
 *
 * <p>{@link PostgresServerBuilder#start()} runs initdb into a fresh temporary directory, picks a free loopback port,
 * starts postgres (no system service, no configuration file but initdb's, the settings of {@link PgSettings}),
 * waits until the superuser can run {@code SELECT 1} over TCP and creates the database {@value #DATABASE}. The data
 * directory and port stay fixed across {@link #stop()}, {@link #kill()} and {@link #start()}, so committed data
 * survives a crash. {@link #close()} (or the JVM's shutdown hook) ends every process and deletes the directory,
 * keeping a copy of the server log under {@code target/postgres-logs}. When the JVM runs as root, the server runs
 * as the OS user {@code postgres} (see {@link PgAccount}).
 *
 * <p>Thread-safe: operations that change the process (start, stop, kill, restart, pause, resume, close) are
 * synchronized; the query methods read volatile state and never block; {@link #sql} and the helpers built on it
 * open their own connection per call; {@link #close()} is idempotent and never throws.
 */
public final class PostgresServer implements AutoCloseable {

    /** DATABASE is the database created at start-up, the one {@link #jdbcUrl()} points at. */
    public static final String DATABASE = "leasehold";

    static final String SUPERUSER_PASSWORD = "leasehold-super";
    static final Duration INITDB_TIMEOUT = Duration.ofSeconds(60);
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
    private static final Duration SQL_TIMEOUT = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 30;
    // pg_terminate_backend(pid, timeout) waits this long for the backend to be gone.
    private static final int TERMINATE_WAIT_MILLIS = 5000;

    private final String name;
    private final Path baseDir;
    private final Path dataDir;
    private final Path socketDir;
    private final Path logFile;
    private final Path postgres;
    private final List<String> settings;

    // Volatile so that the query methods and the shutdown hook never need the lock.
    private volatile int port;
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    PostgresServer(String name, Path baseDir, Path postgres, List<String> settings) {
        this.name = name;
        this.baseDir = baseDir;
        this.dataDir = baseDir.resolve("data");
        this.socketDir = baseDir.resolve("socket");
        this.logFile = baseDir.resolve("postgres.log");
        this.postgres = postgres;
        this.settings = List.copyOf(settings);
    }

    /** builder returns a builder for a server named "postgres" with the launcher's test settings. */
    public static PostgresServerBuilder builder() {
        return new PostgresServerBuilder();
    }

    /** name returns the server's name, used in log lines and in the kept log's file name. */
    public String name() {
        return name;
    }

    /** port returns the TCP port on 127.0.0.1, fixed for the server's life. */
    public int port() {
        return port;
    }

    /** jdbcUrl returns {@code jdbc:postgresql://127.0.0.1:<port>/leasehold}, without options: append {@code ?...}. */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    /** jdbcUrl returns the URL of {@code database} on this server, without options. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** superuser returns the name of the bootstrap superuser, which may also replicate. */
    public String superuser() {
        return PgSettings.SUPERUSER;
    }

    /** superuserPassword returns the superuser's password, the same for every server. */
    public String superuserPassword() {
        return SUPERUSER_PASSWORD;
    }

    /** pid returns the postmaster's process id, or -1 when the server is not running. */
    public long pid() {
        Process current = process;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** isRunning tells whether the postmaster is alive, paused or not. */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** isPaused tells whether the server's processes are stopped with SIGSTOP and not yet resumed. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /** dataDir returns the data directory (PGDATA); close deletes it. */
    public Path dataDir() {
        return dataDir;
    }

    /** socketDir returns the private directory of the server's Unix socket ({@code -k}). */
    public Path socketDir() {
        return socketDir;
    }

    /** logFile returns the file that receives initdb's and postgres's output across all restarts. */
    public Path logFile() {
        return logFile;
    }

    /** logTail returns the last {@code lines} lines of the log, for failure messages. */
    public String logTail(int lines) {
        return ProcessControl.tail(logFile, lines);
    }

    /**
     * start launches a stopped or killed server again on the same data directory and port, and waits until it
     * answers; after a kill, that includes crash recovery from the WAL.
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

    /**
     * stop asks for a fast shutdown (SIGINT: sessions are ended, a checkpoint is written) and waits up to 30 s
     * before killing; SIGTERM, a smart shutdown, would wait for every client to leave.
     */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        // A stopped process keeps the signal pending until it runs again.
        continueIfPaused(current);
        Signals.send(current, "INT");
        if (!ProcessControl.waitFor(current, STOP_GRACE)) {
            log.warn("{}: no shutdown within {} of SIGINT, killing it", name, STOP_GRACE);
            PgProcess.killTree(current);
        }
        log.info("{}: stopped (pid {})", name, current.pid());
    }

    /**
     * kill sends SIGKILL to the postmaster and every backend, a crash without shutdown, and returns once all are
     * gone; a no-op when not running. The next start recovers from the WAL.
     */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        PgProcess.killTree(current);
        paused = false;
        log.info("{}: killed (pid {})", name, current.pid());
    }

    /** restart stops the server (fast shutdown) if it runs, then {@link #start()}s it on the same data and port. */
    public synchronized void restart() {
        stop();
        start();
    }

    /**
     * pause sends SIGSTOP to the postmaster and every backend: sockets stay open and the kernel still accepts
     * connections, but nothing answers, not even sessions that were open.
     */
    public synchronized void pause() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(name + ": cannot pause, not running");
        }
        if (paused) {
            return;
        }
        PgProcess.stopTree(current);
        paused = true;
        log.info("{}: paused (pid {} and its backends)", name, current.pid());
    }

    /** resume sends SIGCONT to a paused server's processes; a no-op when it is not paused. */
    public synchronized void resume() {
        Process current = process;
        if (current == null || !current.isAlive() || !paused) {
            paused = false;
            return;
        }
        PgProcess.continueTree(current);
        paused = false;
        log.info("{}: resumed (pid {})", name, current.pid());
    }

    /**
     * sql runs one statement as the superuser in {@value #DATABASE} on a fresh connection (10 s socket timeout) and
     * returns the rows as strings; statements without a result set return an empty list, SQL NULL becomes
     * {@code null}.
     *
     * @throws IllegalStateException wrapping the SQLException when the statement fails or the server is down
     */
    public List<List<String>> sql(String statement) {
        return sql(DATABASE, statement);
    }

    /** sql runs one statement as {@link #sql(String)} does, in {@code database}. */
    public List<List<String>> sql(String database, String statement) {
        try {
            return PgJdbc.rows(jdbcUrl(database), PgSettings.SUPERUSER, SUPERUSER_PASSWORD, SQL_TIMEOUT, statement);
        } catch (SQLException e) {
            throw new IllegalStateException(name + ": '" + statement + "' failed: " + e.getMessage(), e);
        }
    }

    /**
     * createDatabase creates an empty database owned by the superuser.
     *
     * @throws IllegalArgumentException if the name is not a plain lower-case identifier
     */
    public void createDatabase(String database) {
        sql("postgres", "CREATE DATABASE " + PgJdbc.checkIdentifier("database", database));
    }

    /**
     * createRole creates a login role with the password (reachable over TCP with SCRAM) and runs
     * {@code GRANT <grant> TO} it in {@value #DATABASE} for each grant, for example {@code "CREATE, USAGE ON SCHEMA
     * public"} (since PostgreSQL 15 only the database owner may create in {@code public}) or {@code "SELECT, INSERT,
     * UPDATE ON ALL TABLES IN SCHEMA public"}.
     *
     * @throws IllegalArgumentException if the role name is not a plain lower-case identifier
     * @throws IllegalStateException wrapping the SQLException when the server refuses
     */
    public void createRole(String role, String password, String... grants) {
        sql("CREATE ROLE " + PgJdbc.checkIdentifier("role", role) + " LOGIN PASSWORD " + PgJdbc.literal(password));
        for (String grant : grants) {
            sql("GRANT " + grant + " TO " + role);
        }
    }

    /**
     * createReadOnlyRole creates a login role that may read every table in {@value #DATABASE}'s schema
     * {@code public}, those the superuser creates later included, and write none.
     */
    public void createReadOnlyRole(String role, String password) {
        createRole(role, password, "SELECT ON ALL TABLES IN SCHEMA public");
        sql("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " + role);
    }

    /**
     * terminateBackends ends, with {@code pg_terminate_backend}, every client session that matches {@code filter},
     * a condition on {@code pg_stat_activity} (for example {@code "application_name = 'term'"} or
     * {@code "usename = 'app'"}), and returns how many ended within 5 s each. Replication connections and the
     * session that runs it are never ended.
     */
    public int terminateBackends(String filter) {
        List<List<String>> ended = sql("SELECT pg_terminate_backend(pid, " + TERMINATE_WAIT_MILLIS + ") FROM "
                + "pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND ("
                + filter + ")");
        return (int) ended.stream().filter(row -> "t".equals(row.get(0))).count();
    }

    /**
     * close ends the server (immediate shutdown, SIGKILL after 5 s), keeps a copy of its log and deletes its
     * directory.
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
        end(CLOSE_GRACE);
        paused = false;
        Path kept = ProcessControl.keepLog(logFile, Path.of("target", "postgres-logs"), name);
        IOException failure = ProcessControl.deleteTree(baseDir);
        if (failure != null) {
            log.warn("{}: cannot delete {}: {}", name, baseDir, failure.toString());
        }
        PgReaper.unregister(this);
        log.info("{}: closed{}", name, kept == null ? "" : "; log kept in " + kept);
    }

    /** toString returns the name, port and process state for failure messages. */
    @Override
    public String toString() {
        String state = !isRunning() ? "not running" : (isPaused() ? "paused" : "running") + " pid " + pid();
        return "PostgresServer[" + name + ", 127.0.0.1:" + port + ", " + state + ", " + dataDir + "]";
    }

    // ---- package-private, for the builder, PostgresReplica and PgReaper ----

    /** baseDir is the temporary directory that holds the data, socket and log. */
    Path baseDir() {
        return baseDir;
    }

    /** Shutdown-hook path: no lock, a short grace, because the JVM is going away. */
    void reap() {
        closed = true;
        end(Duration.ofSeconds(2));
        ProcessControl.deleteTree(baseDir);
    }

    /** First start of a fresh data directory: retries on a fresh port when the one picked was taken first. */
    void firstStart(Instant initBegan) {
        Instant began = Instant.now();
        for (int attempt = 1; ; attempt++) {
            port = ProcessControl.freePort();
            String problem = launchAndAwait("start, attempt " + attempt);
            if (problem == null) {
                log.info("{}: up on 127.0.0.1:{} (pid {}, as {}) after init {} ms + start {} ms; data {}", name,
                        port, pid(), PgAccount.describe(), Duration.between(initBegan, began).toMillis(),
                        Duration.between(began, Instant.now()).toMillis(), dataDir);
                return;
            }
            kill();
            String tail = logTail(LOG_TAIL_LINES);
            if (!tail.contains("Address already in use") || attempt >= START_ATTEMPTS) {
                throw new IllegalStateException(name + ": " + problem + " (attempt " + attempt + "); log " + logFile
                        + ":" + System.lineSeparator() + tail);
            }
            log.warn("{}: port {} was taken before postgres bound it, retrying on another", name, port);
        }
    }

    // ---- internals ----

    /** Launches postgres and returns null once the superuser can run SELECT 1, else what went wrong. */
    private String launchAndAwait(String reason) {
        List<String> command = PgSettings.server(postgres, dataDir, socketDir, port, settings);
        Process started = PgProcess.spawn(command, Map.of(), logFile, reason + " " + name);
        process = started;
        paused = false;
        PgReaper.register(this, this::reap);
        return PgJdbc.awaitAnswer(started, "postgres", jdbcUrl("postgres"), PgSettings.SUPERUSER,
                SUPERUSER_PASSWORD, START_TIMEOUT);
    }

    /**
     * Ends the server for good: an immediate shutdown (SIGQUIT), which also removes its shared memory, then SIGKILL
     * to every process still there after {@code grace}; after a kill, removes the segment the dead postmaster left.
     */
    private void end(Duration grace) {
        Process current = process;
        if (current != null && current.isAlive()) {
            continueIfPaused(current);
            try {
                Signals.send(current, "QUIT");
            } catch (RuntimeException e) {
                log.warn("{}: SIGQUIT failed: {}", name, e.toString());
            }
            if (!ProcessControl.waitFor(current, grace)) {
                PgProcess.killTree(current);
            }
        }
        removeStaleSharedMemory();
    }

    /**
     * A postmaster killed with SIGKILL leaves its small System V segment behind; a restart on the same data
     * directory would remove it, but a close deletes the directory that names it. Best effort.
     */
    private void removeStaleSharedMemory() {
        Path pidFile = dataDir.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return;
            }
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            // Line 7 is "<key> <shmid>" (PostgreSQL's LOCK_FILE_LINE_SHMEM_KEY).
            String[] fields = lines.size() >= 7 ? lines.get(6).trim().split("\\s+") : new String[0];
            if (fields.length == 2 && fields[1].matches("[0-9]+")) {
                new ProcessBuilder("ipcrm", "-m", fields[1]).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                        .waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("{}: cannot remove the shared memory a killed postmaster left: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void continueIfPaused(Process current) {
        if (paused) {
            try {
                PgProcess.continueTree(current);
            } catch (RuntimeException e) {
                log.warn("{}: SIGCONT failed: {}", name, e.toString());
            }
            paused = false;
        }
    }
}
