package dev.leasehold.it.postgres;

import dev.leasehold.it.LocalServer;
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
 * <p>Its lifecycle is {@link LocalServer}'s, with a whole process tree: {@link #stop()} is a fast shutdown (SIGINT:
 * sessions end, a checkpoint is written; SIGTERM, a smart shutdown, would wait for every client to leave),
 * {@link #kill()} and {@link #pause()} reach the postmaster and every backend (see {@link PgProcess}), and
 * {@link #close()} is an immediate shutdown, which removes the server's shared memory.
 *
 * <p>Thread-safe: the lifecycle's operations are synchronized and its queries never block; {@link #sql} and the
 * helpers built on it open their own connection per call.
 */
public final class PostgresServer extends LocalServer {

    /** DATABASE is the database created at start-up, the one {@link #jdbcUrl()} points at. */
    public static final String DATABASE = "leasehold";

    static final String SUPERUSER_PASSWORD = "leasehold-super";
    static final Duration INITDB_TIMEOUT = Duration.ofSeconds(60);
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration SQL_TIMEOUT = Duration.ofSeconds(10);
    // pg_terminate_backend(pid, timeout) waits this long for the backend to be gone.
    private static final int TERMINATE_WAIT_MILLIS = 5000;

    private final Path baseDir;
    private final Path dataDir;
    private final Path socketDir;
    private final Path postgres;
    private final List<String> settings;

    PostgresServer(String name, Path baseDir, Path postgres, List<String> settings) {
        super(name, baseDir, baseDir.resolve("postgres.log"), Path.of("target", "postgres-logs"), log);
        this.baseDir = baseDir;
        this.dataDir = baseDir.resolve("data");
        this.socketDir = baseDir.resolve("socket");
        this.postgres = postgres;
        this.settings = List.copyOf(settings);
    }

    /** builder returns a builder for a server named "postgres" with the launcher's test settings. */
    public static PostgresServerBuilder builder() {
        return new PostgresServerBuilder();
    }

    /** jdbcUrl returns {@code jdbc:postgresql://127.0.0.1:<port>/leasehold}, without options: append {@code ?...}. */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    /** jdbcUrl returns the URL of {@code database} on this server, without options. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** superuser returns the name of the bootstrap superuser, which may also replicate. */
    public String superuser() {
        return PgSettings.SUPERUSER;
    }

    /** superuserPassword returns the superuser's password, the same for every server. */
    public String superuserPassword() {
        return SUPERUSER_PASSWORD;
    }

    /** dataDir returns the data directory (PGDATA); close deletes it. */
    public Path dataDir() {
        return dataDir;
    }

    /** socketDir returns the private directory of the server's Unix socket ({@code -k}). */
    public Path socketDir() {
        return socketDir;
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
            throw new IllegalStateException(name() + ": '" + statement + "' failed: " + e.getMessage(), e);
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

    // ---- package-private, for the builder and PostgresReplica ----

    /** baseDir is the temporary directory that holds the data, socket and log. */
    Path baseDir() {
        return baseDir;
    }

    /** First start of a fresh data directory: retries on a fresh port when the one picked was taken first. */
    void firstStart(Instant setUpBegan) {
        startOnFreePort(setUpBegan);
    }

    // ---- LocalServer ----

    /** launch starts postgres on the data directory and port, as {@link PgAccount}. */
    @Override
    protected Process launch(String reason) {
        return PgProcess.spawn(PgSettings.server(postgres, dataDir, socketDir, port(), settings), Map.of(),
                logFile(), reason);
    }

    /** awaitReady waits until the superuser can run SELECT 1 over TCP, after crash recovery if there is one. */
    @Override
    protected String awaitReady(Process started) {
        return PgJdbc.awaitAnswer(started, "postgres", jdbcUrl("postgres"), PgSettings.SUPERUSER,
                SUPERUSER_PASSWORD, START_TIMEOUT);
    }

    /** shutDown asks for a fast shutdown (SIGINT) and waits up to 30 s. */
    @Override
    protected boolean shutDown(Process current) {
        Signals.send(current, "INT");
        return ProcessControl.waitFor(current, STOP_GRACE);
    }

    /** killHard sends SIGKILL to the postmaster and every backend. */
    @Override
    protected void killHard(Process current) {
        PgProcess.killTree(current);
    }

    /** freeze stops the postmaster and every backend, so that open sessions freeze too. */
    @Override
    protected void freeze(Process current) {
        PgProcess.stopTree(current);
    }

    /** thaw continues the postmaster and every backend. */
    @Override
    protected void thaw(Process current) {
        PgProcess.continueTree(current);
    }

    /**
     * end asks for an immediate shutdown (SIGQUIT), which also removes the server's shared memory, kills every
     * process still there after {@code grace}, and after a kill removes the segment the dead postmaster left.
     */
    @Override
    protected void end(Process current, Duration grace) {
        if (current != null && current.isAlive()) {
            Signals.send(current, "QUIT");
            if (!ProcessControl.waitFor(current, grace)) {
                PgProcess.killTree(current);
            }
        }
        removeStaleSharedMemory();
    }

    /** closeGrace gives an immediate shutdown 5 s. */
    @Override
    protected Duration closeGrace() {
        return Duration.ofSeconds(5);
    }

    // ---- internals ----

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
            log.warn("{}: cannot remove the shared memory a killed postmaster left: {}", name(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
