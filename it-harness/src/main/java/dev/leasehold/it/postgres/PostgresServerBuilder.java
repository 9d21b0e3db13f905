package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * PostgresServerBuilder configures a {@link PostgresServer} before {@link #start()} creates and launches it.
 *
 * <p>Not thread-safe: configure and start it from one thread.
 */
public final class PostgresServerBuilder {
    // The data directories initdb made, one per initdb binary: every server's initdb wrote the same cluster (the
    // same superuser and password, locale, encoding and authentication), so a JVM runs initdb once and gives each
    // later server a fresh copy of its result, never a shared directory. Deleted when the JVM exits.
    private static final Map<Path, Path> INITIALISED = new ConcurrentHashMap<>();

    private String name = "postgres";
    private final List<String> settings = new ArrayList<>();

    PostgresServerBuilder() {}

    /** name sets the server's name for log lines and the kept log file; default "postgres". */
    public PostgresServerBuilder name(String name) {
        if (name == null || !PostgresServer.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must match " + PostgresServer.NAME + ", but was " + name);
        }
        this.name = name;
        return this;
    }

    /**
     * setting adds a server setting as {@code name=value} after the launcher's own, which it overrides, for example
     * {@code "synchronous_commit=off"} or {@code "idle_session_timeout=5s"}; default none.
     */
    public PostgresServerBuilder setting(String setting) {
        if (setting == null || !setting.matches("[a-z_][a-z0-9_.]*=.*")) {
            throw new IllegalArgumentException("setting must look like name=value, but was " + setting);
        }
        settings.add(setting);
        return this;
    }

    /**
     * start creates the directory, fills it with initdb's result (run once per JVM, then copied), runs postgres, and
     * creates the database {@value
     * PostgresServer#DATABASE}, returning once the superuser can use it over TCP; on any failure it cleans up and
     * throws IllegalStateException with the log's tail.
     */
    public PostgresServer start() {
        Path postgres = PgBinaries.postgres();
        Path initdb = PgBinaries.initdb();
        PostgresServer server = new PostgresServer(name, PostgresServerBuilder.baseDir(name), postgres, settings);
        Instant began = Instant.now();
        try {
            Path initialised = initialised(initdb, server.logFile());
            Files.writeString(server.logFile(), "=== leasehold launcher: data directory copied from " + initialised
                    + " (initdb's result, made once per JVM) at " + Instant.now() + System.lineSeparator(),
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            copyTree(initialised, server.dataDir());
            server.firstStart(began);
            server.createDatabase(PostgresServer.DATABASE);
            return server;
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException("cannot initialise " + server.dataDir(), e);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * initialised returns the data directory initdb made in this JVM, running initdb into a directory of its own (its
     * output in {@code logFile}) the first time; start copies it, which takes a tenth of a second where initdb took
     * 1.4 to 2.1 s in the suite.
     */
    private static Path initialised(Path initdb, Path logFile) throws IOException {
        Path done = INITIALISED.get(initdb);
        if (done != null) {
            return done;
        }
        synchronized (INITIALISED) {
            done = INITIALISED.get(initdb);
            if (done == null) {
                Path base = baseDir("initdb");
                try {
                    Path passwordFile = base.resolve("superuser-password");
                    Files.writeString(passwordFile, PostgresServer.SUPERUSER_PASSWORD + "\n", StandardCharsets.UTF_8);
                    PgAccount.handOver(passwordFile);
                    done = base.resolve("data");
                    PgProcess.run(PgSettings.initdb(initdb, done, passwordFile), Map.of(), logFile, "initdb",
                            PostgresServer.INITDB_TIMEOUT);
                    Files.delete(passwordFile);
                } catch (IOException | RuntimeException e) {
                    ProcessControl.deleteTree(base);
                    throw e;
                }
                Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessControl.deleteTree(base),
                        "leasehold-pg-initdb-cleanup"));
                INITIALISED.put(initdb, done);
            }
            return done;
        }
    }

    // Copies the directory from, and everything under it, to to, which must not exist, with the owners and modes
    // (postgres wants its data directory its own and 0700).
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path source : (Iterable<Path>) all::iterator) {
                Files.copy(source, to.resolve(from.relativize(source).toString()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    /**
     * baseDir creates a temporary directory that the server's account owns, with its socket directory inside; the
     * short prefix keeps the socket's path under the 107-byte limit of a Unix socket address.
     */
    static Path baseDir(String name) {
        try {
            String prefix = "leasehold-pg-" + (name.length() > 30 ? name.substring(0, 30) : name) + "-";
            Path base = Files.createTempDirectory(prefix);
            PgAccount.handOver(base);
            Path socket = Files.createDirectory(base.resolve("socket"));
            PgAccount.handOver(socket);
            return base;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for " + name, e);
        }
    }
}
