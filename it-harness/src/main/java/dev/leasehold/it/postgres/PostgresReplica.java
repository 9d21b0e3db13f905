package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * PostgresReplica is a streaming hot standby of a running {@link PostgresServer}, made with
 * {@code pg_basebackup -R}: a second private postgres with its own directory and port that replays the primary's
 * WAL and answers read-only queries, so tests can meet a server where {@code pg_is_in_recovery()} is true.
 *
 * <p>{@link #server()} gives its process controls (stop, kill, pause, ...); writes there fail as on any standby.
 * Thread-safe, as {@link PostgresServer} is; {@link #close()} closes the standby, never the primary.
 */
public final class PostgresReplica implements AutoCloseable {

    private static final Duration BACKUP_TIMEOUT = Duration.ofSeconds(60);

    private final PostgresServer primary;
    private final PostgresServer standby;

    private PostgresReplica(PostgresServer primary, PostgresServer standby) {
        this.primary = primary;
        this.standby = standby;
    }

    /**
     * of copies the running {@code primary} with pg_basebackup (as its superuser, a fast checkpoint, the WAL
     * streamed alongside), starts the copy as a hot standby on a free port and returns once it answers
     * {@code SELECT 1}; on failure it cleans up and throws IllegalStateException with the log's tail.
     */
    public static PostgresReplica of(PostgresServer primary) {
        if (!primary.isRunning()) {
            throw new IllegalStateException("cannot copy " + primary + ": it is not running");
        }
        String name = primary.name() + "-standby";
        // fsync off on the standby only: with it on, the first start fsyncs every file pg_basebackup copied (1.4 s
        // of this 2-core machine's disk, measured), and a standby is never a test's durable copy; a killed standby
        // loses nothing the page cache holds, and streams the rest from the primary again.
        PostgresServer standby = new PostgresServer(name, PostgresServerBuilder.baseDir(name), PgBinaries.postgres(),
                List.of("fsync=off"));
        Instant began = Instant.now();
        try {
            PgProcess.run(PgSettings.baseBackup(PgBinaries.pgBasebackup(), primary.port(), standby.dataDir()),
                    Map.of("PGPASSWORD", primary.superuserPassword()), standby.logFile(),
                    "pg_basebackup of " + primary.name(), BACKUP_TIMEOUT);
            standby.firstStart(began);
            return new PostgresReplica(primary, standby);
        } catch (RuntimeException e) {
            standby.close();
            throw e;
        }
    }

    /** server returns the standby's own server, for its URL, SQL and process controls. */
    public PostgresServer server() {
        return standby;
    }

    /** jdbcUrl returns the standby's URL of {@value PostgresServer#DATABASE}, which the superuser may read. */
    public String jdbcUrl() {
        return standby.jdbcUrl();
    }

    /** isInRecovery asks the standby {@code SELECT pg_is_in_recovery()}: true while it is a standby. */
    public boolean isInRecovery() {
        return "t".equals(standby.sql("SELECT pg_is_in_recovery()").get(0).get(0));
    }

    /**
     * awaitReplay waits until the standby has replayed everything the primary had written when it was called, and
     * throws IllegalStateException if that takes longer than {@code timeout}.
     */
    public void awaitReplay(Duration timeout) {
        String target = primary.sql("SELECT pg_current_wal_lsn()").get(0).get(0);
        Instant deadline = Instant.now().plus(timeout);
        while (!"t".equals(standby.sql("SELECT pg_last_wal_replay_lsn() >= '" + target + "'::pg_lsn")
                .get(0).get(0))) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(standby.name() + ": has not replayed up to " + target + " within "
                        + timeout + "; log:" + System.lineSeparator() + standby.logTail(20));
            }
            ProcessControl.sleepQuietly(20);
        }
    }

    /** close closes the standby (never the primary); idempotent and never throws. */
    @Override
    public void close() {
        standby.close();
    }

    /** toString names the standby and its primary. */
    @Override
    public String toString() {
        return "PostgresReplica[" + standby + " of " + primary.name() + "]";
    }
}
