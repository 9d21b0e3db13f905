package dev.leasehold.it.mariadb;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDbServerBuilder configures a {@link MariaDbServer} before {@link #start()}
 * creates and launches it.
 *
 * <p>Not thread-safe: configure and start it from one thread.
 */
public final class MariaDbServerBuilder {
    private String name = "mariadb";
    private final List<String> options = new ArrayList<>();
    private boolean galera;

    MariaDbServerBuilder() {}

    /** name sets the server's name for log lines and the kept log file; default "mariadb". */
    public MariaDbServerBuilder name(String name) {
        if (name == null || !MariaDbServer.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must match " + MariaDbServer.NAME + ", but was " + name);
        }
        this.name = name;
        return this;
    }

    /**
     * option adds a mariadbd flag after the launcher's own, which it overrides because mariadbd lets the last
     * occurrence win, for example {@code --innodb-flush-log-at-trx-commit=1} for a benchmark that wants
     * durable commits; default none.
     */
    public MariaDbServerBuilder option(String flag) {
        if (flag == null || !flag.startsWith("--")) {
            throw new IllegalArgumentException("option must start with --, but was " + flag);
        }
        options.add(flag);
        return this;
    }

    /**
     * galera makes the server a one-node Galera cluster (MariaDB's wsrep with Debian's galera-4 provider, or the one
     * MARIADB_GALERA_PROVIDER names), bootstrapped with {@code --wsrep-new-cluster}, its group communication on a free
     * loopback port; default off. For tests of what the elector refuses: {@code wsrep_on} is ON and GET_LOCK is
     * node-local. One start only: after {@link MariaDbServer#kill()}, Galera refuses to bootstrap again from a node that
     * crashed ({@code safe_to_bootstrap: 0} in grastate.dat), and {@link MariaDbServer#start()} fails saying so.
     */
    public MariaDbServerBuilder galera() {
        this.galera = true;
        return this;
    }

    /**
     * start creates the datadir, runs mariadb-install-db and launches mariadbd, returning once root can run
     * {@code SELECT 1} over TCP; on any failure it cleans up and throws IllegalStateException with the log's tail.
     */
    public MariaDbServer start() {
        Path mariadbd = MariaDbBinaries.mariadbd();
        Path installDb = MariaDbBinaries.installDb();
        List<String> flags = new ArrayList<>();
        if (galera) {
            flags.addAll(MariaDbSettings.galeraFlags(MariaDbBinaries.galeraProvider(), ProcessControl.freePort(),
                    "leasehold-" + name));
        }
        flags.addAll(options);
        Path dataDir;
        try {
            // Short prefix: the socket path inside must stay under the 108-byte limit of a Unix socket address.
            String prefix = "leasehold-mariadb-" + (name.length() > 30 ? name.substring(0, 30) : name) + "-";
            dataDir = Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a datadir for " + name, e);
        }
        MariaDbServer server = new MariaDbServer(name, dataDir, mariadbd, flags);
        Instant began = Instant.now();
        try {
            MariaDbSettings.installDataDir(installDb, dataDir, server.logFile(), MariaDbServer.ROOT_PASSWORD, MariaDbServer.DATABASE,
                    MariaDbServer.INSTALL_TIMEOUT);
            server.firstStart(began);
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }
}
