package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import dev.leasehold.it.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer is one private pgbouncer child process on 127.0.0.1 in front of a {@link PostgresServer}, with its own
 * port, configuration and user list.
 *
 * <p>Every database name is passed through to the server. Clients authenticate with SCRAM against the user list,
 * which holds plain passwords, so pgbouncer can log in to the server as each of them; the superuser is on it from
 * the start and {@link #addUser} adds others. Pooling is per transaction unless {@link PoolMode#SESSION} is asked
 * for. PgBouncer 1.18 has no protocol-level prepared statements in transaction mode: a pgjdbc client that reuses a
 * {@code PreparedStatement} five times (its {@code prepareThreshold}) may meet another client's server connection,
 * so clients in that mode should append {@code ?prepareThreshold=0}. pgjdbc's {@code extra_float_digits} start-up
 * parameter is ignored, as pgbouncer otherwise refuses it.
 *
 * <p>The port stays fixed across {@link #stop()}, {@link #kill()} and {@link #start()}. Thread-safe: operations that
 * change the process are synchronized, the queries read volatile state; {@link #close()} is idempotent and never
 * throws.
 */
public final class PgBouncer implements AutoCloseable {

    /** PoolMode is when pgbouncer gives a server connection back to its pool. */
    public enum PoolMode {
        /** SESSION keeps a server connection for the client's whole session: LISTEN and session locks work. */
        SESSION,
        /**
         * TRANSACTION lends a server connection for one transaction only: the next transaction may run on another
         * server session, so LISTEN, session advisory locks, SET and prepared statements do not carry over.
         */
        TRANSACTION;

        String setting() {
            return name().toLowerCase();
        }
    }

    private static final Logger log = LoggerFactory.getLogger(PgBouncer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 30;

    private final PostgresServer server;
    private final PoolMode mode;
    private final String name;
    private final Path baseDir;
    private final Path config;
    private final Path userList;
    private final Path logFile;
    private final Path pgbouncer;
    // Guarded by this; insertion order keeps the user list stable.
    private final Map<String, String> users = new LinkedHashMap<>();

    private volatile int port;
    private volatile Process process;
    private volatile boolean closed;

    private PgBouncer(PostgresServer server, PoolMode mode, Path pgbouncer) {
        this.server = server;
        this.mode = mode;
        this.name = server.name() + "-pgbouncer-" + mode.setting();
        this.baseDir = PostgresServerBuilder.baseDir(name);
        this.config = baseDir.resolve("pgbouncer.ini");
        this.userList = baseDir.resolve("userlist.txt");
        this.logFile = baseDir.resolve("pgbouncer.log");
        this.pgbouncer = pgbouncer;
        users.put(server.superuser(), server.superuserPassword());
    }

    /** start starts a pgbouncer in transaction pooling mode in front of {@code server}. */
    public static PgBouncer start(PostgresServer server) {
        return start(server, PoolMode.TRANSACTION);
    }

    /**
     * start starts a pgbouncer in {@code mode} in front of {@code server} on a free port and returns once the
     * superuser can run {@code SELECT 1} through it; on failure it cleans up and throws IllegalStateException with
     * the log's tail.
     */
    public static PgBouncer start(PostgresServer server, PoolMode mode) {
        PgBouncer bouncer = new PgBouncer(server, mode, PgBinaries.pgbouncer());
        try {
            bouncer.firstStart();
            return bouncer;
        } catch (RuntimeException e) {
            bouncer.close();
            throw e;
        }
    }

    /** port returns pgbouncer's TCP port on 127.0.0.1, fixed for its life. */
    public int port() {
        return port;
    }

    /** poolMode returns the pooling mode it runs in. */
    public PoolMode poolMode() {
        return mode;
    }

    /**
     * jdbcUrl returns {@code jdbc:postgresql://127.0.0.1:<port>/leasehold} through pgbouncer, without options; in
     * transaction mode append {@code ?prepareThreshold=0} (see the class comment).
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresServer.DATABASE;
    }

    /** pid returns pgbouncer's process id, or -1 when it is not running. */
    public long pid() {
        Process current = process;
        return current != null && current.isAlive() ? current.pid() : -1;
    }

    /** isRunning tells whether pgbouncer is alive. */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** logFile returns the file that receives pgbouncer's output across restarts. */
    public Path logFile() {
        return logFile;
    }

    /** logTail returns the last {@code lines} lines of the log, for failure messages. */
    public String logTail(int lines) {
        return ProcessControl.tail(logFile, lines);
    }

    /**
     * addUser lets a server role log in through pgbouncer with its password, and reloads the user list (SIGHUP)
     * when pgbouncer runs; the role itself is made on the server, for example with
     * {@link PostgresServer#createRole}.
     */
    public synchronized void addUser(String role, String password) {
        users.put(PgJdbc.checkIdentifier("role", role), password);
        writeUserList();
        Process current = process;
        if (current != null && current.isAlive()) {
            Signals.send(current, "HUP");
        }
    }

    /**
     * start launches a stopped or killed pgbouncer again on the same port and returns once it accepts connections.
     *
     * @throws IllegalStateException if it is running or closed, or does not listen within 20 s
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException(name + ": closed");
        }
        if (isRunning()) {
            throw new IllegalStateException(name + ": already running (pid " + pid() + ")");
        }
        String problem = launch("restart");
        if (problem != null) {
            kill();
            throw new IllegalStateException(name + ": " + problem + "; log " + logFile + ":" + System.lineSeparator()
                    + logTail(LOG_TAIL_LINES));
        }
        log.info("{}: started again on 127.0.0.1:{} (pid {})", name, port, pid());
    }

    /**
     * stop sends SIGTERM, pgbouncer's immediate shutdown (every client and server connection is closed at once),
     * and waits up to 10 s before SIGKILL.
     */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        current.destroy();
        if (!ProcessControl.waitFor(current, STOP_GRACE)) {
            kill();
        }
        log.info("{}: stopped (pid {})", name, current.pid());
    }

    /** kill sends SIGKILL and returns once pgbouncer is gone; a no-op when not running. */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        PgProcess.killTree(current);
        log.info("{}: killed (pid {})", name, current.pid());
    }

    /** restart stops pgbouncer if it runs and {@link #start()}s it on the same port: every client loses its link. */
    public synchronized void restart() {
        stop();
        start();
    }

    /** close kills pgbouncer, keeps a copy of its log and deletes its directory; idempotent and never throws. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            PgProcess.killTree(current);
        }
        Path kept = ProcessControl.keepLog(logFile, Path.of("target", "postgres-logs"), name);
        IOException failure = ProcessControl.deleteTree(baseDir);
        if (failure != null) {
            log.warn("{}: cannot delete {}: {}", name, baseDir, failure.toString());
        }
        PgReaper.unregister(this);
        log.info("{}: closed{}", name, kept == null ? "" : "; log kept in " + kept);
    }

    /** toString returns the name, port, mode and process state for failure messages. */
    @Override
    public String toString() {
        return "PgBouncer[" + name + ", 127.0.0.1:" + port + " -> " + server.port() + ", " + mode.setting() + ", "
                + (isRunning() ? "running pid " + pid() : "not running") + "]";
    }

    // ---- internals ----

    /** Shutdown-hook path: no lock, because the JVM is going away. */
    private void reap() {
        closed = true;
        Process current = process;
        if (current != null && current.isAlive()) {
            current.destroyForcibly();
            ProcessControl.waitFor(current, Duration.ofSeconds(2));
        }
        ProcessControl.deleteTree(baseDir);
    }

    private synchronized void firstStart() {
        writeUserList();
        for (int attempt = 1; ; attempt++) {
            port = ProcessControl.freePort();
            String problem = launch("start, attempt " + attempt);
            if (problem == null) {
                problem = PgJdbc.awaitAnswer(process, "pgbouncer", jdbcUrl() + "?prepareThreshold=0",
                        server.superuser(), server.superuserPassword(), START_TIMEOUT);
            }
            if (problem == null) {
                log.info("{}: up on 127.0.0.1:{} (pid {}) in front of {}", name, port, pid(), server.jdbcUrl());
                return;
            }
            kill();
            String tail = logTail(LOG_TAIL_LINES);
            if (!tail.contains("Address already in use") || attempt >= START_ATTEMPTS) {
                throw new IllegalStateException(name + ": " + problem + " (attempt " + attempt + "); log " + logFile
                        + ":" + System.lineSeparator() + tail);
            }
            log.warn("{}: port {} was taken before pgbouncer bound it, retrying on another", name, port);
        }
    }

    /** Writes the configuration for the current port, launches pgbouncer and waits until its port accepts. */
    private String launch(String reason) {
        writeFile(config, String.join("\n",
                "[databases]",
                // Any database name goes to the same-named database on the server.
                "* = host=127.0.0.1 port=" + server.port(),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                // No Unix socket: tests connect over TCP, as applications do.
                "unix_socket_dir =",
                "auth_type = scram-sha-256",
                "auth_file = " + userList,
                "pool_mode = " + mode.setting(),
                "admin_users = " + server.superuser(),
                // pgjdbc sends it at start-up; pgbouncer refuses start-up parameters it does not know.
                "ignore_startup_parameters = extra_float_digits",
                // The default 100 is too few for 100 candidates with a session each, plus a test's own.
                "max_client_conn = 1000",
                ""));
        Process started = PgProcess.spawn(List.of(pgbouncer.toString(), config.toString()), Map.of(), logFile,
                reason + " " + name);
        process = started;
        PgReaper.register(this, this::reap);
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            if (!started.isAlive()) {
                return "pgbouncer exited with code " + started.exitValue() + " while starting";
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return null;
            } catch (IOException notYet) {
                ProcessControl.sleepQuietly(20);
            }
        }
        return "pgbouncer does not listen on 127.0.0.1:" + port + " within " + START_TIMEOUT;
    }

    private void writeUserList() {
        StringBuilder list = new StringBuilder();
        users.forEach((role, password) -> list.append('"').append(role).append("\" \"")
                .append(password.replace("\"", "\"\"")).append("\"\n"));
        writeFile(userList, list.toString());
    }

    private static void writeFile(Path file, String content) {
        try {
            Files.writeString(file, content, StandardCharsets.UTF_8);
            PgAccount.handOver(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
