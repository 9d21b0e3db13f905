package dev.leasehold.it.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * PostgresServerBuilder configures a {@link PostgresServer} before {@link #start()} creates and launches it.
 *
 * <p>Not thread-safe: configure and start it from one thread.
 */
public final class PostgresServerBuilder {
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
     * start creates the directory, runs initdb and postgres, and creates the database {@value
     * PostgresServer#DATABASE}, returning once the superuser can use it over TCP; on any failure it cleans up and
     * throws IllegalStateException with the log's tail.
     */
    public PostgresServer start() {
        Path postgres = PgBinaries.postgres();
        Path initdb = PgBinaries.initdb();
        PostgresServer server = new PostgresServer(name, PostgresServerBuilder.baseDir(name), postgres, settings);
        Instant began = Instant.now();
        try {
            Path passwordFile = server.baseDir().resolve("superuser-password");
            Files.writeString(passwordFile, PostgresServer.SUPERUSER_PASSWORD + "\n", StandardCharsets.UTF_8);
            PgAccount.handOver(passwordFile);
            PgProcess.run(PgSettings.initdb(initdb, server.dataDir(), passwordFile), Map.of(), server.logFile(),
                    "initdb " + name, PostgresServer.INITDB_TIMEOUT);
            Files.delete(passwordFile);
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
