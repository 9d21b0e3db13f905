package dev.leasehold.it.postgres;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * PgSettings holds the command lines {@link PostgresServer} runs initdb, postgres and pg_basebackup with; stateless
 * and thread-safe.
 *
 * <p>Chosen for many short-lived private servers on a small shared machine: no configuration but the command line,
 * loopback only, little memory, and durable commits. Changed from PostgreSQL 15's defaults, each for the reason at
 * its line: {@code shared_buffers}, {@code max_connections}, {@code dynamic_shared_memory_type}, {@code timezone}
 * and {@code log_timezone}, and initdb's {@code --no-sync}. Kept at their defaults, and stated on the command line so
 * that the server log shows them: {@code fsync}, {@code synchronous_commit} and {@code full_page_writes}, since the
 * tests kill and restart the server and expect every commit back from disk.
 */
final class PgSettings {

    /** SUPERUSER is the bootstrap superuser initdb creates; it may also replicate. */
    static final String SUPERUSER = "leasehold";

    private PgSettings() {}

    /** initdb's command line for an empty data directory, with the superuser's password in {@code passwordFile}. */
    static List<String> initdb(Path initdb, Path dataDir, Path passwordFile) {
        return List.of(initdb.toString(),
                "--pgdata=" + dataDir,
                "--username=" + SUPERUSER,
                "--pwfile=" + passwordFile,
                // The private socket is reachable only by this account; TCP, as users connect, asks for a password,
                // so that wrong credentials are refused as in production.
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                // The C locale: collation and messages the same on every machine, whatever its environment says.
                "--locale=C",
                // Skips the final fsync of the fresh cluster (about 0.5 s of a 2-core machine's disk): only a kernel
                // crash could lose it, which no test causes. The server itself runs with fsync on.
                "--no-sync",
                "--no-instructions");
    }

    /** The postgres command line: the binary, the data directory, then every setting as {@code -c name=value}. */
    static List<String> server(Path postgres, Path dataDir, Path socketDir, int port, List<String> extra) {
        List<String> command = new ArrayList<>();
        command.add(postgres.toString());
        command.add("-D");
        command.add(dataDir.toString());
        List<String> settings = new ArrayList<>(List.of(
                "listen_addresses=127.0.0.1",
                "port=" + port,
                // A private socket directory, not /var/run/postgresql, which belongs to the system's service.
                "unix_socket_directories=" + socketDir,
                // 16 MB instead of 128 MB: lease tables are a few rows, and several servers may run at once.
                "shared_buffers=16MB",
                // 500 instead of 100: 100 idle candidates with a term session and a pooled connection each, plus a
                // chaos run's admin sessions and a PgBouncer's server pool.
                "max_connections=500",
                // Files under the data directory instead of /dev/shm: a server killed with SIGKILL and then closed
                // without a restart would leave its segments in /dev/shm until the machine reboots.
                "dynamic_shared_memory_type=mmap",
                // Defaults, stated: a kill and restart must give back every committed row.
                "fsync=on",
                "synchronous_commit=on",
                "full_page_writes=on",
                // UTC instead of the machine's zone, so that log lines and timestamps read the same everywhere.
                "timezone=UTC",
                "log_timezone=UTC"));
        // Later occurrences win, so the caller's settings override the launcher's.
        settings.addAll(extra);
        for (String setting : settings) {
            command.add("-c");
            command.add(setting);
        }
        return command;
    }

    /**
     * pg_basebackup's command line for a streaming standby of the server at {@code port}: {@code -R} writes
     * standby.signal and primary_conninfo, {@code -X stream} copies the WAL written meanwhile, and a fast checkpoint
     * starts the copy at once instead of after a spread one.
     */
    static List<String> baseBackup(Path pgBasebackup, int port, Path dataDir) {
        return List.of(pgBasebackup.toString(),
                "--host=127.0.0.1",
                "--port=" + port,
                "--username=" + SUPERUSER,
                "--pgdata=" + dataDir,
                "--write-recovery-conf",
                "--wal-method=stream",
                "--checkpoint=fast",
                "--no-sync",
                "--no-password");
    }
}
