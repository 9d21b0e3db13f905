package dev.leasehold.it.postgres;

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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PostgresReplicaIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static PostgresServer primary;

    @BeforeAll
    static void startPrimary() {
        primary = PostgresServer.builder().name("PostgresReplicaIT").start();
    }

    @AfterAll
    static void stopPrimary() {
        primary.close();
    }

    // One test, since each standby costs a pg_basebackup and a start.
    @Test
    void a_standby_made_with_pg_basebackup_is_in_recovery_replays_commits_refuses_writes_and_closes_alone()
            throws SQLException {
        primary.sql("CREATE TABLE replicated (id int PRIMARY KEY, note text)");
        primary.sql("INSERT INTO replicated VALUES (1, 'before the base backup')");
        long began = System.nanoTime();
        Path standbyData;
        try (PostgresReplica replica = PostgresReplica.of(primary)) {
            standbyData = replica.server().dataDir();
            System.out.println("PostgresReplicaIT: pg_basebackup + standby start took "
                    + (System.nanoTime() - began) / 1_000_000 + " ms");
            assertNotEquals(primary.port(), replica.server().port());
            assertTrue(replica.isInRecovery(), "pg_is_in_recovery() on the standby");
            assertEquals("f", primary.sql("SELECT pg_is_in_recovery()").get(0).get(0), "not on the primary");
            await("the primary streams to it").atMost(WAIT).until(
                    () -> primary.sql("SELECT state FROM pg_stat_replication"), List.of(List.of("streaming"))::equals);

            primary.sql("INSERT INTO replicated VALUES (2, 'after the base backup')");
            replica.awaitReplay(WAIT);
            assertEquals(List.of(List.of("before the base backup"), List.of("after the base backup")),
                    replica.server().sql("SELECT note FROM replicated ORDER BY id"));

            try (Connection connection = DriverManager.getConnection(replica.jdbcUrl(), primary.superuser(),
                    primary.superuserPassword()); Statement statement = connection.createStatement()) {
                SQLException refused = assertThrows(SQLException.class,
                        () -> statement.execute("INSERT INTO replicated VALUES (3, 'on the standby')"));
                assertEquals("25006", refused.getSQLState(), "read_only_sql_transaction: " + refused);
            }
        }

        assertFalse(Files.exists(standbyData), standbyData + " is deleted");
        assertTrue(primary.isRunning());
        assertEquals("1", primary.sql("SELECT 1").get(0).get(0));
        await("no standby streams any more").atMost(WAIT).until(
                () -> primary.sql("SELECT state FROM pg_stat_replication"), List::isEmpty);
    }
}
