package dev.leasehold.it.postgres;

import static dev.leasehold.it.postgres.PgClient.connect;
import static dev.leasehold.it.postgres.PgClient.execute;
import static dev.leasehold.it.postgres.PgClient.scalar;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PostgresServerIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void the_server_answers_the_superuser_over_tcp_in_its_own_database_with_the_stated_settings(PostgresServer postgres)
            throws SQLException {
        assertTrue(postgres.sql("SELECT version()").get(0).get(0).startsWith("PostgreSQL "));
        try (Connection connection = superuser(postgres, 5)) {
            assertEquals("leasehold", scalar(connection, "SELECT current_database()"));
            assertEquals("t", scalar(connection, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"));
        }
        assertEquals(List.of(List.of("127.0.0.1/32", String.valueOf(postgres.port()))),
                postgres.sql("SELECT inet_server_addr()::text, inet_server_port()"));
        assertEquals(List.of(List.of("on", "on", "on", "16MB", "500", "UTC")), postgres.sql(
                "SELECT current_setting('fsync'), current_setting('synchronous_commit'),"
                        + " current_setting('full_page_writes'), current_setting('shared_buffers'),"
                        + " current_setting('max_connections'), current_setting('log_timezone')"));
        assertEquals(postgres.socketDir().toString(), postgres.sql("SHOW unix_socket_directories").get(0).get(0));
        assertTrue(Files.exists(postgres.socketDir().resolve(".s.PGSQL." + postgres.port())),
                "the socket lives in the private directory");
        assertTrue(postgres.logTail(50).contains("database system is ready to accept connections"),
                postgres.logTail(50));
    }

    @Test
    void a_created_role_logs_in_with_its_password_and_a_wrong_password_is_refused(PostgresServer postgres)
            throws SQLException {
        // A quote on purpose: the password must reach the server unchanged.
        String password = "it's a secret";
        postgres.createRole("app_it", password, "CREATE, USAGE ON SCHEMA public");

        try (Connection connection = connect(postgres.jdbcUrl(), "app_it", password, 5)) {
            assertEquals("app_it", scalar(connection, "SELECT current_user"));
            execute(connection, "CREATE TABLE app_it_own (id int PRIMARY KEY)");
        }
        SQLException refused = assertThrows(SQLException.class,
                () -> connect(postgres.jdbcUrl(), "app_it", "wrong", 5).close());
        assertEquals("28P01", refused.getSQLState(), "invalid_password: " + refused);
        IllegalArgumentException badName = assertThrows(IllegalArgumentException.class,
                () -> postgres.createRole("App; DROP", "x"));
        assertTrue(badName.getMessage().startsWith("role must match"), badName.getMessage());
    }

    @Test
    void a_read_only_role_reads_every_table_and_writes_none(PostgresServer postgres) throws SQLException {
        postgres.sql("CREATE TABLE read_only_before (id int PRIMARY KEY)");
        postgres.createReadOnlyRole("reader_it", "reader-secret");
        postgres.sql("CREATE TABLE read_only_after (id int PRIMARY KEY)");
        postgres.sql("INSERT INTO read_only_after VALUES (1)");

        try (Connection connection = connect(postgres.jdbcUrl(), "reader_it", "reader-secret", 5)) {
            assertEquals("0", scalar(connection, "SELECT count(*) FROM read_only_before"));
            assertEquals("1", scalar(connection, "SELECT count(*) FROM read_only_after"));
            for (String write : List.of("INSERT INTO read_only_after VALUES (2)",
                    "UPDATE read_only_before SET id = 2", "CREATE TABLE read_only_own (id int)")) {
                SQLException denied = assertThrows(SQLException.class, () -> execute(connection, write));
                assertEquals("42501", denied.getSQLState(), write + ": insufficient_privilege, " + denied);
            }
        }
    }

    @Test
    void a_created_database_takes_connections(PostgresServer postgres) throws SQLException {
        postgres.createDatabase("other_it");
        try (Connection connection = connect(postgres.jdbcUrl("other_it"), postgres.superuser(),
                postgres.superuserPassword(), 5)) {
            assertEquals("other_it", scalar(connection, "SELECT current_database()"));
        }
    }

    @Test
    void an_advisory_lock_blocks_a_second_session_until_the_holder_unlocks_it(PostgresServer postgres)
            throws Exception {
        try (Connection holder = superuser(postgres, 30); Connection waiter = superuser(postgres, 30)) {
            assertEquals("t", scalar(holder, "SELECT pg_try_advisory_lock(101)"));
            CompletableFuture<String> waiting = blockedAdvisoryLock(postgres, waiter, 101);

            assertFalse(waiting.isDone(), "the second pg_advisory_lock waits while the lock is held");
            assertEquals("t", scalar(holder, "SELECT pg_advisory_unlock(101)"));
            await().atMost(WAIT).until(waiting::isDone);
            assertEquals("", waiting.get(), "pg_advisory_lock returns void");
        }
    }

    @Test
    void lock_timeout_bounds_an_advisory_lock_wait_with_55P03_and_the_session_goes_on(PostgresServer postgres)
            throws Exception {
        try (Connection holder = superuser(postgres, 30); Connection waiter = superuser(postgres, 30)) {
            assertEquals("t", scalar(holder, "SELECT pg_try_advisory_lock(103)"));
            execute(waiter, "SET lock_timeout = '200ms'");

            SQLException timedOut = assertThrows(SQLException.class,
                    () -> scalar(waiter, "SELECT pg_advisory_lock(103)"));

            assertEquals("55P03", timedOut.getSQLState(), "lock_not_available: " + timedOut);
            assertEquals("1", scalar(waiter, "SELECT 1"), "a lock timeout is an error, not the session's end");
            assertEquals("t", scalar(holder, "SELECT pg_advisory_unlock(103)"));
            assertEquals("", scalar(waiter, "SELECT pg_advisory_lock(103)"), "free again, the same wait succeeds");
        }
    }

    @Test
    void terminate_backends_ends_the_matching_session_and_frees_its_advisory_lock(PostgresServer postgres)
            throws Exception {
        try (Connection holder = connect(postgres.jdbcUrl() + "?ApplicationName=holder_it", postgres.superuser(),
                postgres.superuserPassword(), 30); Connection waiter = superuser(postgres, 30)) {
            assertEquals("t", scalar(holder, "SELECT pg_try_advisory_lock(102)"));
            CompletableFuture<String> waiting = blockedAdvisoryLock(postgres, waiter, 102);

            assertEquals(1, postgres.terminateBackends("application_name = 'holder_it'"));

            await().atMost(WAIT).until(waiting::isDone);
            SQLException gone = assertThrows(SQLException.class, () -> scalar(holder, "SELECT 1"));
            assertEquals("57P01", gone.getSQLState(), "admin_shutdown: " + gone);
            assertEquals(0, postgres.terminateBackends("application_name = 'holder_it'"), "nothing left to end");
        }
    }

    @Test
    void pause_freezes_even_open_sessions_and_resume_lets_them_answer_again(PostgresServer postgres)
            throws SQLException {
        try (Connection open = superuser(postgres, 1)) {
            assertEquals("1", scalar(open, "SELECT 1"));
            postgres.pause();
            try {
                assertTrue(postgres.isPaused());
                SQLException timedOut = assertThrows(SQLException.class, () -> scalar(open, "SELECT 1"),
                        "a frozen backend answers nothing within the 1 s socket timeout");
                assertEquals("08006", timedOut.getSQLState(), "connection_failure: " + timedOut);
                assertThrows(SQLException.class, () -> superuser(postgres, 1).close(), "nor does a new session start");
            } finally {
                postgres.resume();
            }
        }
        assertFalse(postgres.isPaused());
        try (Connection connection = superuser(postgres, 5)) {
            assertEquals("1", scalar(connection, "SELECT 1"));
        }
    }

    @Test
    void a_committed_row_survives_kill_and_restart_on_the_same_port_through_crash_recovery(PostgresServer postgres)
            throws Exception {
        postgres.sql("CREATE TABLE survivor (id int PRIMARY KEY, note text)");
        postgres.sql("INSERT INTO survivor VALUES (1, 'committed before SIGKILL')");
        long pidBefore = postgres.pid();
        int port = postgres.port();
        List<ProcessHandle> tree = ProcessHandle.of(pidBefore).orElseThrow().descendants().toList();
        assertFalse(tree.isEmpty(), "a postmaster has background processes");

        postgres.kill();
        assertFalse(postgres.isRunning());
        assertEquals(-1, postgres.pid());
        assertTrue(tree.stream().noneMatch(PgProcess::running), "every backend is gone with the postmaster");
        postgres.restart();

        assertTrue(postgres.isRunning());
        assertNotEquals(pidBefore, postgres.pid());
        assertEquals(port, postgres.port());
        assertEquals(List.of(List.of("committed before SIGKILL")), postgres.sql("SELECT note FROM survivor"));
        assertTrue(postgres.logTail(40).contains("automatic recovery in progress"), postgres.logTail(40));

        postgres.sql("INSERT INTO survivor VALUES (2, 'committed before a clean stop')");
        postgres.stop();
        assertFalse(postgres.isRunning());
        postgres.start();
        assertEquals("2", postgres.sql("SELECT count(*) FROM survivor").get(0).get(0));
    }

    @Test
    void close_after_a_kill_ends_every_process_and_leaves_no_directory_and_no_shared_memory() throws Exception {
        PostgresServer server = PostgresServer.builder().name("PostgresServerIT-close").start();
        long pid = server.pid();
        List<ProcessHandle> tree = ProcessHandle.of(pid).orElseThrow().descendants().toList();
        Path dataDir = server.dataDir();
        List<String> pidFile = Files.readAllLines(dataDir.resolve("postmaster.pid"), StandardCharsets.UTF_8);
        String shmid = pidFile.get(6).trim().split("\\s+")[1];
        assertTrue(sharedMemoryIds().contains(shmid), "the running server's segment " + shmid + " is listed");

        server.kill();
        server.close();
        server.close();

        assertFalse(ProcessHandle.of(pid).map(PgProcess::running).orElse(false), "postmaster " + pid + " gone");
        assertTrue(tree.stream().noneMatch(PgProcess::running), "every backend is gone");
        assertFalse(Files.exists(dataDir.getParent()), dataDir.getParent() + " is deleted");
        assertFalse(sharedMemoryIds().contains(shmid), "the killed postmaster's segment " + shmid + " is removed");
        assertThrows(IllegalStateException.class, server::start, "a closed server does not start again");
    }

    /** Starts pg_advisory_lock(key) on {@code waiter} and returns once the server shows it waiting for the lock. */
    private CompletableFuture<String> blockedAdvisoryLock(PostgresServer postgres, Connection waiter, int key)
            throws SQLException {
        String waiterPid = scalar(waiter, "SELECT pg_backend_pid()");
        CompletableFuture<String> result = new CompletableFuture<>();
        // A thread of its own: the statement blocks until the lock is free.
        Thread waiting = new Thread(() -> {
            try {
                result.complete(scalar(waiter, "SELECT pg_advisory_lock(" + key + ")"));
            } catch (SQLException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "postgres-it-advisory-wait");
        waiting.setDaemon(true);
        waiting.start();
        await().atMost(WAIT).until(() -> !postgres.sql("SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
                + " AND NOT granted AND pid = " + waiterPid).isEmpty());
        return result;
    }

    /** The ids of the System V shared memory segments, from /proc/sysvipc/shm. */
    private static List<String> sharedMemoryIds() throws Exception {
        return Files.readAllLines(Path.of("/proc/sysvipc/shm")).stream().skip(1)
                .map(line -> line.trim().split("\\s+")[1]).toList();
    }

    private static Connection superuser(PostgresServer postgres, int socketTimeoutSeconds) throws SQLException {
        return connect(postgres.jdbcUrl(), postgres.superuser(), postgres.superuserPassword(), socketTimeoutSeconds);
    }
}
