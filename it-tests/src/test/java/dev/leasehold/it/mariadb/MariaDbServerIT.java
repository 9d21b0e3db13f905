package dev.leasehold.it.mariadb;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MariaDbExtension.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class MariaDbServerIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static ExecutorService blocking;

    @BeforeAll
    static void startExecutor() {
        blocking = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "mariadb-it-blocking");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterAll
    static void stopExecutor() {
        blocking.shutdownNow();
    }

    @Test
    void the_server_answers_root_over_tcp_in_its_own_database(MariaDbServer mariadb) throws SQLException {
        assertTrue(mariadb.sql("SELECT VERSION()").get(0).get(0).contains("MariaDB"));
        try (Connection connection = connect(mariadb, mariadb.rootUser(), mariadb.rootPassword(), 5000)) {
            assertEquals("leasehold", scalar(connection, "SELECT DATABASE()"));
            assertEquals("1", scalar(connection, "SELECT 1"));
        }
        assertEquals(List.of(List.of("127.0.0.1", String.valueOf(mariadb.port()))),
                mariadb.sql("SELECT @@bind_address, @@port"));
        assertTrue(Files.exists(mariadb.dataDir().resolve("mariadb.sock")), "the socket lives in the datadir");
        assertTrue(mariadb.logTail(50).contains("ready for connections"), mariadb.logTail(50));
    }

    @Test
    void a_created_user_logs_in_with_its_password_and_a_wrong_password_is_refused(MariaDbServer mariadb)
            throws SQLException {
        // Quotes and backslashes on purpose: the password must reach the server unchanged.
        String password = "it's a \\secret";
        mariadb.createUser("app", password, "SELECT, INSERT, UPDATE, DELETE ON leasehold.*");

        try (Connection connection = connect(mariadb, "app", password, 5000)) {
            assertEquals("app@%", scalar(connection, "SELECT CURRENT_USER()"));
        }
        SQLException refused = assertThrows(SQLException.class, () -> connect(mariadb, "app", "wrong", 5000).close());
        assertEquals(1045, refused.getErrorCode(), refused.toString());
        SQLException noRights = assertThrows(SQLException.class, () -> {
            try (Connection connection = connect(mariadb, "app", password, 5000)) {
                scalar(connection, "SELECT COUNT(*) FROM mysql.user");
            }
        });
        assertEquals(1142, noRights.getErrorCode(), "only the granted schema: " + noRights);
    }

    @Test
    void get_lock_blocks_a_second_session_until_the_holder_releases_it(MariaDbServer mariadb) throws Exception {
        try (Connection holder = root(mariadb); Connection waiter = root(mariadb)) {
            assertEquals("1", scalar(holder, "SELECT GET_LOCK('it-release', 0)"));
            CompletableFuture<String> waiting = blockedGetLock(mariadb, waiter, "it-release");

            assertFalse(waiting.isDone(), "the second GET_LOCK waits while the lock is held");
            assertEquals("1", scalar(holder, "SELECT RELEASE_LOCK('it-release')"));
            assertEquals("1", await().atMost(WAIT).until(() -> waiting.getNow(null), value -> value != null));
        }
    }

    @Test
    void get_lock_passes_on_when_the_holders_session_is_killed_from_a_third(MariaDbServer mariadb) throws Exception {
        try (Connection holder = root(mariadb); Connection waiter = root(mariadb)) {
            assertEquals("1", scalar(holder, "SELECT GET_LOCK('it-kill', 0)"));
            String holderId = scalar(holder, "SELECT CONNECTION_ID()");
            CompletableFuture<String> waiting = blockedGetLock(mariadb, waiter, "it-kill");

            mariadb.sql("KILL " + holderId);

            assertEquals("1", await().atMost(WAIT).until(() -> waiting.getNow(null), value -> value != null));
            assertThrows(SQLException.class, () -> scalar(holder, "SELECT 1"), "the killed session is gone");
        }
    }

    @Test
    void pause_makes_a_query_time_out_and_resume_lets_the_next_one_succeed(MariaDbServer mariadb) throws Exception {
        try (Connection connection = connect(mariadb, mariadb.rootUser(), mariadb.rootPassword(), 500)) {
            assertEquals("1", scalar(connection, "SELECT 1"));
            mariadb.pause();
            try {
                assertTrue(mariadb.isPaused());
                assertThrows(SQLException.class, () -> scalar(connection, "SELECT 1"),
                        "a frozen server answers nothing within the 500 ms socket timeout");
            } finally {
                mariadb.resume();
            }
        }
        assertFalse(mariadb.isPaused());
        try (Connection connection = connect(mariadb, mariadb.rootUser(), mariadb.rootPassword(), 5000)) {
            assertEquals("1", scalar(connection, "SELECT 1"));
        }
    }

    @Test
    void a_committed_row_survives_kill_and_restart_on_the_same_port(MariaDbServer mariadb) throws SQLException {
        mariadb.sql("CREATE TABLE leasehold.survivor (id INT PRIMARY KEY, note VARCHAR(40)) ENGINE=InnoDB");
        mariadb.sql("INSERT INTO leasehold.survivor VALUES (1, 'committed before SIGKILL')");
        long pidBefore = mariadb.pid();
        int port = mariadb.port();

        mariadb.kill();
        assertFalse(mariadb.isRunning());
        assertEquals(-1, mariadb.pid());
        mariadb.restart();

        assertTrue(mariadb.isRunning());
        assertNotEquals(pidBefore, mariadb.pid());
        assertEquals(port, mariadb.port());
        assertEquals(List.of(List.of("committed before SIGKILL")),
                mariadb.sql("SELECT note FROM leasehold.survivor WHERE id = 1"));
    }

    @Test
    void close_ends_the_process_and_deletes_the_datadir() {
        long began = System.nanoTime();
        MariaDbServer server = MariaDbServer.builder().name("MariaDbServerIT-close").start();
        long startMillis = (System.nanoTime() - began) / 1_000_000;
        System.out.println("MariaDbServerIT: install-db + start + SELECT 1 took " + startMillis + " ms");
        long pid = server.pid();
        Path dataDir = server.dataDir();
        assertTrue(pid > 0);
        assertTrue(Files.isDirectory(dataDir));

        server.close();
        server.close();

        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        assertFalse(process.isPresent() && process.get().isAlive(), "mariadbd pid " + pid + " is gone");
        assertFalse(Files.exists(dataDir), dataDir + " is deleted");
        assertFalse(server.isRunning());
        assertThrows(IllegalStateException.class, server::start, "a closed server does not start again");
    }

    /** Starts GET_LOCK(name, 30) on {@code waiter} and returns once the server shows it waiting for the lock. */
    private CompletableFuture<String> blockedGetLock(MariaDbServer mariadb, Connection waiter, String name)
            throws SQLException {
        String waiterId = scalar(waiter, "SELECT CONNECTION_ID()");
        CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
            try {
                return scalar(waiter, "SELECT GET_LOCK('" + name + "', 30)");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, blocking);
        await().atMost(WAIT).until(() -> !mariadb.sql("SELECT ID FROM information_schema.PROCESSLIST WHERE ID = "
                + waiterId + " AND STATE = 'User lock'").isEmpty());
        return result;
    }

    private static Connection root(MariaDbServer mariadb) throws SQLException {
        return connect(mariadb, mariadb.rootUser(), mariadb.rootPassword(), 35_000);
    }

    private static Connection connect(MariaDbServer mariadb, String user, String password, int socketTimeoutMillis)
            throws SQLException {
        return DriverManager.getConnection(
                mariadb.jdbcUrl() + "?connectTimeout=2000&socketTimeout=" + socketTimeoutMillis, user, password);
    }

    private static String scalar(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            assertTrue(result.next(), query + " returned no row");
            return result.getString(1);
        }
    }
}
