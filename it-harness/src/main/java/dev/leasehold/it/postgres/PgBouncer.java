package dev.leasehold.it.postgres;

import dev.leasehold.it.LocalServer;
import dev.leasehold.it.ProcessControl;
import dev.leasehold.it.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * <p>Its lifecycle is {@link LocalServer}'s: the port stays fixed across {@link #stop()} (SIGTERM, pgbouncer's
 * immediate shutdown: every client and server connection is closed at once), {@link #kill()} and {@link #start()}.
 * Thread-safe: the lifecycle's operations and {@link #addUser} are synchronized, the queries never block.
 */
public final class PgBouncer extends LocalServer {

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
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(PgBouncer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration SQL_TIMEOUT = Duration.ofSeconds(10);

    private final PostgresServer server;
    private final PoolMode mode;
    private final Path config;
    private final Path userList;
    private final Path pgbouncer;
    // Guarded by this; insertion order keeps the user list stable.
    private final Map<String, String> users = new LinkedHashMap<>();

    private PgBouncer(PostgresServer server, PoolMode mode, Path baseDir, Path pgbouncer) {
        super(server.name() + "-pgbouncer-" + mode.setting(), baseDir, baseDir.resolve("pgbouncer.log"),
                Path.of("target", "postgres-logs"), log);
        this.server = server;
        this.mode = mode;
        this.config = baseDir.resolve("pgbouncer.ini");
        this.userList = baseDir.resolve("userlist.txt");
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
        Path pgbouncer = PgBinaries.pgbouncer();
        String name = server.name() + "-pgbouncer-" + mode.setting();
        PgBouncer bouncer = new PgBouncer(server, mode, PostgresServerBuilder.baseDir(name), pgbouncer);
        try {
            Instant began = Instant.now();
            bouncer.writeUserList();
            bouncer.startOnFreePort(began);
            // Listening is not yet serving: the first start also proves that the superuser gets through.
            String problem = PgJdbc.awaitAnswer(bouncer.process(), "pgbouncer",
                    bouncer.jdbcUrl() + "?prepareThreshold=0", server.superuser(), server.superuserPassword(),
                    START_TIMEOUT);
            if (problem != null) {
                throw new IllegalStateException(name + ": " + problem + "; log " + bouncer.logFile() + ":"
                        + System.lineSeparator() + bouncer.logTail(LOG_TAIL_LINES));
            }
            return bouncer;
        } catch (RuntimeException e) {
            bouncer.close();
            throw e;
        }
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
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + PostgresServer.DATABASE;
    }

    /**
     * addUser lets a server role log in through pgbouncer with its password, and reloads the user list (SIGHUP)
     * when pgbouncer runs; the role itself is made on the server, for example with
     * {@link PostgresServer#createRole}.
     */
    public synchronized void addUser(String role, String password) {
        users.put(PgJdbc.checkIdentifier("role", role), password);
        writeUserList();
        if (isRunning()) {
            Signals.send("HUP", List.of(pid()));
        }
    }

    /**
     * sql runs one statement as the superuser in {@value PostgresServer#DATABASE} through pgbouncer, on a fresh
     * connection (10 s socket timeout, no server-side prepared statement), and returns the rows as strings; statements
     * without a result set return an empty list.
     *
     * @param statement the SQL statement
     * @return the rows, SQL NULL as {@code null}
     * @throws IllegalStateException wrapping the SQLException when the statement fails or pgbouncer or the server
     *     does not answer
     */
    public List<List<String>> sql(String statement) {
        try {
            return PgJdbc.rows(jdbcUrl() + "?prepareThreshold=0", server.superuser(), server.superuserPassword(),
                    SQL_TIMEOUT, statement);
        } catch (SQLException e) {
            throw new IllegalStateException(name() + ": '" + statement + "' failed: " + e.getMessage(), e);
        }
    }

    /** version returns the first line of {@code pgbouncer --version}, such as "PgBouncer 1.18.0". */
    public String version() {
        try {
            Process process = new ProcessBuilder(pgbouncer.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(5, TimeUnit.SECONDS);
            return out.lines().findFirst().orElse("unknown").trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + pgbouncer + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking pgbouncer its version", e);
        }
    }

    /** toString returns the name, port, server port, mode and process state for failure messages. */
    @Override
    public String toString() {
        return "PgBouncer[" + name() + ", 127.0.0.1:" + port() + " -> " + server.port() + ", " + mode.setting()
                + ", " + (isRunning() ? "running pid " + pid() : "not running") + "]";
    }

    // ---- LocalServer ----

    /** launch writes the configuration for the current port and starts pgbouncer, as {@link PgAccount}. */
    @Override
    protected Process launch(String reason) {
        writeFile(config, String.join("\n",
                "[databases]",
                // Any database name goes to the same-named database on the server.
                "* = host=127.0.0.1 port=" + server.port(),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port(),
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
                // After a failed server login (postgres restarting) pgbouncer waits this long before it tries
                // again; the default 15 s would add up to 15 s to every failover behind it.
                "server_login_retry = 1",
                ""));
        return PgProcess.spawn(List.of(pgbouncer.toString(), config.toString()), Map.of(), logFile(), reason);
    }

    /** awaitReady waits until pgbouncer's port accepts connections. */
    @Override
    protected String awaitReady(Process started) {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            if (!started.isAlive()) {
                return "pgbouncer exited with code " + started.exitValue() + " while starting";
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port()), 500);
                return null;
            } catch (IOException notYet) {
                ProcessControl.sleepQuietly(20);
            }
        }
        return "pgbouncer does not listen on 127.0.0.1:" + port() + " within " + START_TIMEOUT;
    }

    /** shutDown sends SIGTERM, pgbouncer's immediate shutdown, and waits up to 10 s. */
    @Override
    protected boolean shutDown(Process current) {
        current.destroy();
        return ProcessControl.waitFor(current, STOP_GRACE);
    }

    // ---- internals ----

    private synchronized void writeUserList() {
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
