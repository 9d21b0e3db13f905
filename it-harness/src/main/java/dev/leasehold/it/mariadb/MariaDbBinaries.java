package dev.leasehold.it.mariadb;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * MariaDbBinaries locates mariadbd, mariadb-install-db and the Galera provider; stateless and therefore
 * thread-safe.
 */
final class MariaDbBinaries {

    private static final String INSTALL_HINT =
            "install Debian package mariadb-server (apt-get install -y mariadb-server)";
    // Debian puts mariadbd in /usr/sbin, which a non-root PATH often lacks.
    private static final String[] FALLBACK_DIRS = {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"};

    private static final String[] GALERA_PROVIDERS = {
        "/usr/lib/galera/libgalera_smm.so", "/usr/lib64/galera-4/libgalera_smm.so", "/usr/lib/galera-4/libgalera_smm.so"};

    private MariaDbBinaries() {}

    /** The server binary: MARIADBD_BIN, else mariadbd on PATH or in /usr/sbin. */
    static Path mariadbd() {
        return resolve("MARIADBD_BIN", "mariadbd");
    }

    /** The datadir initialiser: MARIADB_INSTALL_DB_BIN, else mariadb-install-db on PATH or in /usr/bin. */
    static Path installDb() {
        return resolve("MARIADB_INSTALL_DB_BIN", "mariadb-install-db");
    }

    /**
     * The Galera 4 provider library: MARIADB_GALERA_PROVIDER, else where Debian's galera-4 (or a
     * Red Hat-like galera package) puts it.
     */
    static Path galeraProvider() {
        String explicit = System.getenv("MARIADB_GALERA_PROVIDER");
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!Files.isRegularFile(path)) {
                throw new IllegalStateException("MARIADB_GALERA_PROVIDER=" + explicit + " is not a file; fix it, or"
                        + " unset it and install Debian package galera-4 (apt-get install -y galera-4)");
            }
            return path;
        }
        for (String candidate : GALERA_PROVIDERS) {
            if (Files.isRegularFile(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        throw new IllegalStateException("libgalera_smm.so not found in " + String.join(", ", GALERA_PROVIDERS)
                + ": install Debian package galera-4 (apt-get install -y galera-4) or set MARIADB_GALERA_PROVIDER");
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
