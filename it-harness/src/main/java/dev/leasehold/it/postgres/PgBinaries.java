package dev.leasehold.it.postgres;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * PgBinaries locates postgres, initdb, pg_basebackup and pgbouncer; stateless and therefore thread-safe.
 *
 * <p>Debian keeps the server programs off PATH, in {@code /usr/lib/postgresql/<major>/bin}: the launcher takes
 * {@code PG_BIN} when set, else major 15 (the version this project tests), else the newest major installed.
 */
final class PgBinaries {

    private static final String PG_HINT = "install Debian package postgresql (apt-get install -y postgresql)";
    private static final String BOUNCER_HINT = "install Debian package pgbouncer (apt-get install -y pgbouncer)";
    private static final Path DEBIAN_ROOT = Path.of("/usr/lib/postgresql");
    private static final String PREFERRED_MAJOR = "15";
    // Debian puts pgbouncer in /usr/sbin, which a non-root PATH often lacks.
    private static final List<String> BOUNCER_DIRS = List.of("/usr/sbin", "/usr/local/sbin", "/usr/local/bin");

    private PgBinaries() {}

    /** The server: {@code postgres} in the PostgreSQL binary directory. */
    static Path postgres() {
        return serverTool("postgres");
    }

    /** The data directory initialiser: {@code initdb} in the PostgreSQL binary directory. */
    static Path initdb() {
        return serverTool("initdb");
    }

    /** The streaming base backup tool that makes a standby: {@code pg_basebackup} in the binary directory. */
    static Path pgBasebackup() {
        return serverTool("pg_basebackup");
    }

    /** The pooler: PGBOUNCER_BIN, else pgbouncer on PATH or in /usr/sbin. */
    static Path pgbouncer() {
        String explicit = System.getenv("PGBOUNCER_BIN");
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!isExecutable(path)) {
                // An explicit but broken setting is a configuration error; falling back to PATH would hide it.
                throw new IllegalStateException("PGBOUNCER_BIN=" + explicit
                        + " is not an executable file; fix it, or unset it and " + BOUNCER_HINT);
            }
            return path;
        }
        List<String> dirs = new ArrayList<>();
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            dirs.addAll(List.of(pathVariable.split(File.pathSeparator)));
        }
        dirs.addAll(BOUNCER_DIRS);
        return dirs.stream()
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, "pgbouncer"))
                .filter(PgBinaries::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "pgbouncer not found on PATH or in " + BOUNCER_DIRS + ": " + BOUNCER_HINT
                                + " or set PGBOUNCER_BIN"));
    }

    private static Path serverTool(String name) {
        Path tool = binDir().resolve(name);
        if (!isExecutable(tool)) {
            throw new IllegalStateException(tool + " is not an executable file: " + PG_HINT
                    + ", or set PG_BIN to the directory that holds postgres, initdb and pg_basebackup");
        }
        return tool;
    }

    private static Path binDir() {
        String explicit = System.getenv("PG_BIN");
        if (explicit != null && !explicit.isBlank()) {
            Path dir = Path.of(explicit.trim());
            if (!Files.isDirectory(dir)) {
                throw new IllegalStateException("PG_BIN=" + explicit + " is not a directory; point it at the one that"
                        + " holds postgres, initdb and pg_basebackup, or unset it and " + PG_HINT);
            }
            return dir;
        }
        Path preferred = DEBIAN_ROOT.resolve(PREFERRED_MAJOR).resolve("bin");
        if (isExecutable(preferred.resolve("postgres"))) {
            return preferred;
        }
        try (Stream<Path> majors = Files.list(DEBIAN_ROOT)) {
            return majors.filter(dir -> dir.getFileName().toString().matches("[0-9]+"))
                    .filter(dir -> isExecutable(dir.resolve("bin").resolve("postgres")))
                    .max(Comparator.comparingInt(dir -> Integer.parseInt(dir.getFileName().toString())))
                    .map(dir -> dir.resolve("bin"))
                    .orElseThrow(() -> notInstalled());
        } catch (IOException e) {
            if (!Files.exists(DEBIAN_ROOT)) {
                throw notInstalled();
            }
            throw new UncheckedIOException("cannot list " + DEBIAN_ROOT, e);
        }
    }

    private static IllegalStateException notInstalled() {
        return new IllegalStateException("no PostgreSQL server in " + DEBIAN_ROOT + "/<major>/bin: " + PG_HINT
                + " or set PG_BIN to the directory that holds postgres, initdb and pg_basebackup");
    }

    private static boolean isExecutable(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }
}
