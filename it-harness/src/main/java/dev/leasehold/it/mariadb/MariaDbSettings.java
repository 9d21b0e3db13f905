package dev.leasehold.it.mariadb;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * MariaDbSettings holds the flags {@link MariaDbServer} runs mariadb-install-db and mariadbd with, and spawns them;
 * thread-safe (its one state, the installed datadirs it copies, is a concurrent map of directories written once).
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

    // The datadirs install-db left, one per install-db, root password and database: every server's install would
    // write the same files (the same system tables, the same root accounts, the same empty database), so a JVM runs
    // install-db once and gives each later server a fresh copy of its result, never a shared directory.
    private static final Map<List<String>, Path> INSTALLED = new ConcurrentHashMap<>();

    /**
     * Fills the empty {@code dataDir} with what mariadb-install-db makes of an empty datadir: every root account with
     * {@code rootPassword} (including root@127.0.0.1, the one TCP clients reach) and {@code database} created. The
     * first call in a JVM runs install-db into a datadir of its own (its output in {@code logFile}); every call copies
     * that result, which takes a tenth of a second where install-db took 1.2 to 3.4 s in the suite, and says so in
     * the log. Throws with the log's tail on failure.
     */
    static void installDataDir(Path installDb, Path dataDir, Path logFile, String rootPassword, String database,
            Duration timeout) {
        List<String> key = List.of(installDb.toString(), rootPassword, database);
        Path installed = INSTALLED.get(key);
        if (installed == null) {
            synchronized (INSTALLED) {
                installed = INSTALLED.get(key);
                if (installed == null) {
                    installed = installTemplate(installDb, logFile, rootPassword, database, timeout);
                    INSTALLED.put(key, installed);
                }
            }
        }
        try {
            Files.writeString(logFile, "=== leasehold launcher: datadir copied from " + installed
                    + " (mariadb-install-db's result, made once per JVM) at " + Instant.now() + System.lineSeparator(),
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            copyTree(installed, dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the installed datadir " + installed + " to " + dataDir, e);
        }
    }

    // Runs install-db into a datadir of its own, kept for copying until the JVM exits.
    private static Path installTemplate(Path installDb, Path logFile, String rootPassword, String database,
            Duration timeout) {
        Path template;
        try {
            template = Files.createTempDirectory("leasehold-mariadb-installed-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a datadir to install", e);
        }
        try {
            runInstallDb(installDb, template, logFile, rootPassword, database, timeout);
        } catch (RuntimeException e) {
            ProcessControl.deleteTree(template);
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessControl.deleteTree(template),
                "leasehold-mariadb-installed-cleanup"));
        return template;
    }

    // Copies the tree under from into the existing empty directory to, with the files' and directories' owners and
    // modes (install-db's are 0700 and 0660).
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path source : (Iterable<Path>) all::iterator) {
                if (!source.equals(from)) {
                    Files.copy(source, to.resolve(from.relativize(source).toString()),
                            StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    /**
     * Runs mariadb-install-db into an empty datadir, giving every root account {@code rootPassword} (including
     * root@127.0.0.1, the one TCP clients reach) and creating {@code database}; throws with the log's tail on failure.
     */
    private static void runInstallDb(Path installDb, Path dataDir, Path logFile, String rootPassword, String database,
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
