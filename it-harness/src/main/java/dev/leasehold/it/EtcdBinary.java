package dev.leasehold.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** EtcdBinary locates the etcd executable; stateless and therefore thread-safe. */
final class EtcdBinary {

    static final String NOT_FOUND =
            "etcd binary not found: install Debian package etcd-server (apt-get install -y etcd-server) or set ETCD_BIN";

    private EtcdBinary() {}

    static Path resolve() {
        String explicit = System.getenv("ETCD_BIN");
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit.trim());
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                // An explicit but broken setting is a configuration error; silently falling back to PATH would hide it.
                throw new IllegalStateException("ETCD_BIN=" + explicit + " is not an executable file");
            }
            return path;
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String entry : pathVariable.split(File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(entry, "etcd");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException(NOT_FOUND);
    }
}
