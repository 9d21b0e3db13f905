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

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PgBouncerIT shows what works through PgBouncer 1.18 and what users lose in transaction pooling: plain statements
 * and transactions work; a LISTEN does not outlive its transaction, and a session advisory lock outlives its client.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PgBouncerIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    // Long enough for a notification that was sent to arrive; it is what the session-mode test waits for too.
    private static final int LISTEN_WAIT_MILLIS = 1000;

    private static PostgresServer postgres;
    private static PgBouncer transaction;
    private static PgBouncer session;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.builder().name("PgBouncerIT").start();
        long began = System.nanoTime();
        transaction = PgBouncer.start(postgres);
        session = PgBouncer.start(postgres, PgBouncer.PoolMode.SESSION);
        System.out.println("PgBouncerIT: two pgbouncers started in " + (System.nanoTime() - began) / 1_000_000
                + " ms");
    }

    @AfterAll
    static void stop() {
        transaction.close();
        session.close();
        postgres.close();
    }

    @Test
    void in_transaction_mode_plain_statements_and_transactions_work_and_a_wrong_password_is_refused()
            throws SQLException {
        assertEquals(PgBouncer.PoolMode.TRANSACTION, transaction.poolMode());
        try (Connection connection = through(transaction)) {
            assertEquals("leasehold", scalar(connection, "SELECT current_database()"));
            execute(connection, "CREATE TABLE bounced (id int PRIMARY KEY, note text)");
            connection.setAutoCommit(false);
            execute(connection, "INSERT INTO bounced VALUES (1, 'one transaction')");
            execute(connection, "UPDATE bounced SET note = note || ', committed' WHERE id = 1");
            connection.commit();
            connection.setAutoCommit(true);
        }
        assertEquals(List.of(List.of("one transaction, committed")), postgres.sql("SELECT note FROM bounced"));

        SQLException refused = assertThrows(SQLException.class,
                () -> connect(transaction.jdbcUrl(), postgres.superuser(), "wrong", 10).close());
        assertEquals("08P01", refused.getSQLState(), "pgbouncer refuses the login: " + refused);
    }

    @Test
    void a_role_added_to_the_user_list_logs_in_through_pgbouncer() throws SQLException {
        postgres.createRole("bounced_app", "app-secret");
        transaction.addUser("bounced_app", "app-secret");

        await().atMost(WAIT).ignoreExceptions().until(() -> {
            try (Connection connection = connect(transaction.jdbcUrl(), "bounced_app", "app-secret", 10)) {
                return scalar(connection, "SELECT current_user").equals("bounced_app");
            }
        });
    }

    @Test
    void in_transaction_mode_a_listen_does_not_deliver_on_the_clients_next_transaction() throws SQLException {
        assertEquals(List.of(), listenNotifyAndWait(transaction, "lost_in_the_pool"),
                "the LISTEN ran on a server session that went back to the pool");
    }

    @Test
    void in_session_mode_a_listen_delivers_as_on_a_direct_connection() throws SQLException {
        assertEquals(List.of("kept_in_the_session:payload"), listenNotifyAndWait(session, "kept_in_the_session"));
    }

    @Test
    void in_transaction_mode_one_clients_transactions_land_on_one_backend_so_its_pid_does_not_reveal_pooling()
            throws SQLException {
        try (Connection client = through(transaction)) {
            String first = scalar(client, "SELECT pg_backend_pid()");
            for (int i = 0; i < 5; i++) {
                assertEquals(first, scalar(client, "SELECT pg_backend_pid()"),
                        "pgbouncer lends the most recently used server connection first");
            }
        }
    }

    @Test
    void in_transaction_mode_a_session_advisory_lock_outlives_its_client_and_in_session_mode_it_does_not()
            throws SQLException {
        try (Connection client = through(transaction)) {
            assertEquals("t", scalar(client, "SELECT pg_try_advisory_lock(201)"));
        }
        // The server session that took it went back to the pool, lock and all; nothing ends it.
        assertEquals(List.of(List.of("1")), heldAdvisoryLocks(201));
        assertEquals(1, postgres.terminateBackends("pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
                + " AND objid = 201 AND granted)"));
        await().atMost(WAIT).until(() -> heldAdvisoryLocks(201), List.of(List.of("0"))::equals);

        try (Connection client = through(session)) {
            assertEquals("t", scalar(client, "SELECT pg_try_advisory_lock(202)"));
            assertEquals(List.of(List.of("1")), heldAdvisoryLocks(202));
        }
        // pgbouncer's server_reset_query, DISCARD ALL, unlocks it when the client leaves.
        await().atMost(WAIT).until(() -> heldAdvisoryLocks(202), List.of(List.of("0"))::equals);
    }

    @Test
    void restart_and_kill_cut_every_client_and_the_same_port_serves_again() throws SQLException {
        PgBouncer bouncer = PgBouncer.start(postgres);
        try {
            int port = bouncer.port();
            for (Runnable outage : List.<Runnable>of(bouncer::restart, () -> {
                bouncer.kill();
                assertFalse(bouncer.isRunning());
                bouncer.start();
            })) {
                long pidBefore = bouncer.pid();
                try (Connection client = through(bouncer)) {
                    assertEquals("1", scalar(client, "SELECT 1"));
                    outage.run();
                    SQLException cut = assertThrows(SQLException.class, () -> scalar(client, "SELECT 1"));
                    assertTrue(cut.getSQLState().startsWith("08"), "a connection exception: " + cut);
                }
                assertNotEquals(pidBefore, bouncer.pid());
                assertEquals(port, bouncer.port());
                try (Connection client = through(bouncer)) {
                    assertEquals("1", scalar(client, "SELECT 1"));
                }
            }
        } finally {
            bouncer.close();
        }
        assertFalse(bouncer.isRunning());
    }

    /**
     * LISTENs on a connection through {@code bouncer} in its own transaction, NOTIFYs on a direct connection, runs
     * one more statement through the bouncer and returns what arrived there within a second, as channel:payload.
     */
    private static List<String> listenNotifyAndWait(PgBouncer bouncer, String channel) throws SQLException {
        try (Connection listener = through(bouncer); Connection notifier = direct()) {
            execute(listener, "LISTEN " + channel);
            execute(notifier, "NOTIFY " + channel + ", 'payload'");
            assertEquals("1", scalar(listener, "SELECT 1"));
            PGNotification[] arrived = listener.unwrap(PGConnection.class).getNotifications(LISTEN_WAIT_MILLIS);
            return arrived == null ? List.of()
                    : List.of(arrived).stream().map(n -> n.getName() + ":" + n.getParameter()).toList();
        }
    }

    private static List<List<String>> heldAdvisoryLocks(int key) {
        return postgres.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = " + key
                + " AND granted");
    }

    private static Connection through(PgBouncer bouncer) throws SQLException {
        // pgbouncer 1.18 keeps no prepared statement across transactions: see PgBouncer's class comment.
        return connect(bouncer.jdbcUrl() + "?prepareThreshold=0", postgres.superuser(), postgres.superuserPassword(),
                10);
    }

    private static Connection direct() throws SQLException {
        return connect(postgres.jdbcUrl(), postgres.superuser(), postgres.superuserPassword(), 10);
    }
}
