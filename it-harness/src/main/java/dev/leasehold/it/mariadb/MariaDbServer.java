package dev.leasehold.it.mariadb;

import dev.leasehold.it.LocalServer;
import dev.leasehold.it.ProcessControl;
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
 * <p>Thread-safe: the lifecycle is {@link LocalServer}'s (operations that change the process are synchronized, the
 * query methods never block, {@link #close()} is idempotent and never throws); {@link #sql} and {@link #createUser}
 * open their own connection per call.
 */
public final class MariaDbServer extends LocalServer {

    /** DATABASE is the schema created at initialisation, the one {@link #jdbcUrl()} points at. */
    public static final String DATABASE = "leasehold";

    private static final Logger log = LoggerFactory.getLogger(MariaDbServer.class);
    private static final String ROOT_USER = "root";
    static final String ROOT_PASSWORD = "leasehold-root";
    static final Duration INSTALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_]{1,80}");

    private final Path dataDir;
    private final Path mariadbd;
    private final List<String> options;

    MariaDbServer(String name, Path dataDir, Path mariadbd, List<String> options) {
        super(name, dataDir, dataDir.resolve("mariadbd.log"), Path.of("target", "mariadb-logs"), log);
        this.dataDir = dataDir;
        this.mariadbd = mariadbd;
        this.options = List.copyOf(options);
    }

    /** builder returns a builder for a server named "mariadb" with the launcher's test settings. */
    public static MariaDbServerBuilder builder() {
        return new MariaDbServerBuilder();
    }

    /** jdbcUrl returns {@code jdbc:mariadb://127.0.0.1:<port>/leasehold}, without options: append {@code ?...}. */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port() + "/" + DATABASE;
    }

    /** rootUser returns the name of the all-privileged account reachable over TCP. */
    public String rootUser() {
        return ROOT_USER;
    }

    /** rootPassword returns the root account's password, the same for every server. */
    public String rootPassword() {
        return ROOT_PASSWORD;
    }

    /** dataDir returns the datadir, which also holds the socket, pid and log files; close deletes it. */
    public Path dataDir() {
        return dataDir;
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
            throw new IllegalStateException(name() + ": '" + statement + "' failed: " + e.getMessage(), e);
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

    // ---- package-private, for the builder ----

    /** First start: install-db has run; retry on a fresh port when the one picked was taken before mariadbd bound it. */
    void firstStart(Instant installBegan) {
        startOnFreePort(installBegan);
    }

    // ---- LocalServer ----

    /** launch starts mariadbd on the datadir and port. */
    @Override
    protected Process launch(String reason) {
        List<String> command = new ArrayList<>();
        command.add(mariadbd.toString());
        command.addAll(MariaDbSettings.serverFlags(dataDir, port()));
        command.addAll(options);
        return MariaDbSettings.spawn(command, logFile(), reason);
    }

    /** awaitReady waits until root can run SELECT 1 over TCP. */
    @Override
    protected String awaitReady(Process started) {
        return MariaDbJdbc.awaitAnswer(started, jdbcUrl(), ROOT_USER, ROOT_PASSWORD, START_TIMEOUT);
    }

    /** portTaken also knows mariadbd's own wording for a port in use. */
    @Override
    protected boolean portTaken(String logTail) {
        return super.portTaken(logTail) || logTail.contains("Do you already have another");
    }

    /** shutDown sends SIGTERM and waits up to 30 s for a clean shutdown. */
    @Override
    protected boolean shutDown(Process current) {
        current.destroy();
        return ProcessControl.waitFor(current, STOP_GRACE);
    }
}
