package dev.leasehold.it.mariadb;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** MariaDbBinaries locates mariadbd and mariadb-install-db; stateless and therefore thread-safe. */
final class MariaDbBinaries {

    private static final String INSTALL_HINT =
            "install Debian package mariadb-server (apt-get install -y mariadb-server)";
    // Debian puts mariadbd in /usr/sbin, which a non-root PATH often lacks.
    private static final String[] FALLBACK_DIRS = {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"};

    private MariaDbBinaries() {}

    /** The server binary: MARIADBD_BIN, else mariadbd on PATH or in /usr/sbin. */
    static Path mariadbd() {
        return resolve("MARIADBD_BIN", "mariadbd");
    }

    /** The datadir initialiser: MARIADB_INSTALL_DB_BIN, else mariadb-install-db on PATH or in /usr/bin. */
    static Path installDb() {
        return resolve("MARIADB_INSTALL_DB_BIN", "mariadb-install-db");
    }

    private static Path resolve(String variable, String name) {
        String explicit = System.getenv(variable);
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!isExecutable(path)) {
                // An explicit but broken setting is a configuration error; silently falling back to PATH would hide it.
                throw new IllegalStateException(variable + "=" + explicit
                        + " is not an executable file; fix it, or unset it and " + INSTALL_HINT);
            }
            return path;
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String entry : pathVariable.split(File.pathSeparator)) {
                if (!entry.isEmpty() && isExecutable(Path.of(entry, name))) {
                    return Path.of(entry, name);
                }
            }
        }
        for (String dir : FALLBACK_DIRS) {
            if (isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        throw new IllegalStateException(name + " not found: " + INSTALL_HINT + " or set " + variable);
    }

    private static boolean isExecutable(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }
}
