package dev.leasehold.it.mariadb;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDbSettings holds the flags {@link MariaDbServer} runs mariadb-install-db and mariadbd with, and spawns them;
 * stateless and thread-safe.
 *
 * <p>The flags are chosen for many short-lived private servers on a small shared machine: no option files, loopback
 * only, little memory, and commits that survive a SIGKILL of mariadbd but not a kernel crash, which no test causes.
 */
final class MariaDbSettings {

    // Shared by install-db's bootstrap and the server: the redo log is created at this size by install-db, and a
    // different size at start-up would make every first start resize it.
    private static final List<String> INNODB_SIZES = List.of(
            // 32 MiB instead of 128: lease tables are a few rows, and several servers may run at once.
            "--innodb-buffer-pool-size=32M",
            // 8 MiB instead of 96: install-db writes the whole file, and tests write little.
            "--innodb-log-file-size=8M");

    private MariaDbSettings() {}

    /**
     * The server's temporary files go to its own datadir, not to the shared /tmp: two servers bootstrapping at the
     * same time (the suite runs it-tests beside cli's tests) made one's install-db fail with "Could not remove
     * temporary table: '/tmp/#sql-temptable-...', error: 2" and "Unknown table 'mysql.tmp_user_sys'". The files
     * are named {@code #sql...}, which mariadbd never takes for a table, and close() deletes them with the datadir.
     */
    private static String tmpdir(Path dataDir) {
        return "--tmpdir=" + dataDir;
    }

    /** The mariadbd flags after the binary; {@code --no-defaults} must come first. */
    static List<String> serverFlags(Path dataDir, int port) {
        List<String> flags = new ArrayList<>();
        // Never read /etc/mysql or ~/.my.cnf: a developer's config must not change what the tests run against.
        flags.add("--no-defaults");
        flags.add("--datadir=" + dataDir);
        flags.add(tmpdir(dataDir));
        if (ProcessControl.runningAsRoot()) {
            // mariadbd refuses to run as root unless told to.
            flags.add("--user=root");
        }
        flags.add("--bind-address=127.0.0.1");
        flags.add("--port=" + port);
        flags.add("--socket=" + dataDir.resolve("mariadb.sock"));
        flags.add("--pid-file=" + dataDir.resolve("mariadbd.pid"));
        // No DNS lookup per connection (slow or hanging without DNS); accounts match by IP.
        flags.add("--skip-name-resolve");
        // The default 151 is too few for 100 idle candidates with a lock connection and a pooled one each.
        flags.add("--max-connections=500");
        // Chaos proxies reset connections mid-handshake; the default 100 such errors would block 127.0.0.1.
        flags.add("--max-connect-errors=1000000000");
        // mariadbd asks for max(max-connections * 5, 2 * cache * instances + ...) file descriptors; the defaults (2000
        // tables, 8 instances) ask for 32 k, over common ulimits, and earn a warning. Tests open a handful of tables.
        flags.add("--table-open-cache=200");
        flags.add("--table-open-cache-instances=1");
        // What Debian's packaged configuration sets; without option files the compiled default is latin1.
        flags.add("--character-set-server=utf8mb4");
        flags.addAll(INNODB_SIZES);
        // Write the redo log at every commit, fsync it once a second: a SIGKILLed mariadbd (kill()) loses no commit,
        // since the page cache survives the process; only a kernel crash could, which no test causes. Saves an fsync
        // per renewal on a shared disk. The doublewrite buffer stays on: SIGKILL can interrupt a page write midway.
        flags.add("--innodb-flush-log-at-trx-commit=2");
        // Nothing to warm up in a test server: no dump at shutdown, no load at start.
        flags.add("--innodb-buffer-pool-dump-at-shutdown=OFF");
        flags.add("--innodb-buffer-pool-load-at-startup=OFF");
        return flags;
    }

    /**
     * The flags that make mariadbd a one-node Galera cluster: wsrep on, the provider loaded, a new cluster bootstrapped
     * from this node, group communication on {@code gcommPort} of 127.0.0.1, and what Galera requires of the server
     * (row-based binlog, interleaved auto-increment locks).
     */
    static List<String> galeraFlags(Path provider, int gcommPort, String clusterName) {
        return List.of(
                "--wsrep-on=ON",
                "--wsrep-provider=" + provider,
                // An empty address and --wsrep-new-cluster: this node is the whole cluster.
                "--wsrep-cluster-address=gcomm://",
                "--wsrep-new-cluster",
                "--wsrep-cluster-name=" + clusterName,
                "--wsrep-node-address=127.0.0.1",
                // Not Galera's fixed 4567, which would collide between servers; an 8 MiB ring buffer instead of the
                // 128 MiB file the default preallocates.
                "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:" + gcommPort + ";gcache.size=8M",
                "--binlog-format=ROW",
                "--innodb-autoinc-lock-mode=2");
    }

    /**
     * Runs mariadb-install-db into an empty datadir, giving every root account {@code rootPassword} (including
     * root@127.0.0.1, the one TCP clients reach) and creating {@code database}; throws with the log's tail on failure.
     */
    static void installDataDir(Path installDb, Path dataDir, Path logFile, String rootPassword, String database,
            Duration timeout) {
        Path bootstrap = dataDir.resolve("leasehold-bootstrap.sql");
        List<String> command = new ArrayList<>();
        command.add(installDb.toString());
        command.add("--no-defaults");
        command.add("--datadir=" + dataDir);
        command.add(tmpdir(dataDir));
        if (ProcessControl.runningAsRoot()) {
            command.add("--user=root");
        }
        // "normal" creates root@localhost, root@127.0.0.1 and root@::1 with password authentication (and no
        // password); the default "socket" would leave root reachable only through the Unix socket as Unix root.
        command.add("--auth-root-authentication-method=normal");
        command.add("--skip-test-db");
        command.add("--skip-name-resolve");
        command.add("--extra-file=" + bootstrap);
        command.addAll(INNODB_SIZES);
        try {
            Files.writeString(bootstrap, bootstrapSql(rootPassword, database), StandardCharsets.UTF_8);
            ProcessControl.awaitSuccess(spawn(command, logFile, "install-db"), "mariadb-install-db", logFile, timeout);
            Files.delete(bootstrap);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot initialise datadir " + dataDir, e);
        }
    }

    /** Starts a child whose stdout and stderr are appended to {@code logFile}, after a header line. */
    static Process spawn(List<String> command, Path logFile, String reason) {
        ProcessBuilder builder = new ProcessBuilder(command);
        // mariadbd and its clients take defaults from MYSQL_* variables (MYSQL_TCP_PORT, MYSQL_UNIX_PORT, ...).
        builder.environment().keySet().removeIf(key -> key.startsWith("MYSQL_") || key.startsWith("MARIADB"));
        return ProcessControl.spawn(builder, logFile, reason + ": " + String.join(" ", command));
    }

    // Runs in install-db's bootstrap server; FLUSH PRIVILEGES loads the grant tables so that ALTER USER works.
    private static String bootstrapSql(String rootPassword, String database) {
        String password = MariaDbJdbc.quote(rootPassword);
        String keep = "('localhost', '127.0.0.1', '::1')";
        return String.join(System.lineSeparator(),
                "FLUSH PRIVILEGES;",
                "ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY " + password + ";",
                "ALTER USER IF EXISTS 'root'@'127.0.0.1' IDENTIFIED BY " + password + ";",
                "ALTER USER IF EXISTS 'root'@'::1' IDENTIFIED BY " + password + ";",
                // root@<hostname> only earns a warning per start under --skip-name-resolve.
                "DELETE FROM mysql.global_priv WHERE User = 'root' AND Host NOT IN " + keep + ";",
                "DELETE FROM mysql.proxies_priv WHERE User = 'root' AND Host NOT IN " + keep + ";",
                "CREATE DATABASE `" + database + "`;",
                "");
    }
}
