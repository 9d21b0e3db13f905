package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PgAccount is the operating-system account the launcher runs postgres, initdb, pg_basebackup and pgbouncer as:
 * this JVM's own, or, when it runs as root, the account {@code postgres} that Debian's package creates. Both
 * programs refuse to run as root ("root execution of the PostgreSQL server is not permitted", "PgBouncer should not
 * run as root"), and a test JVM in a container often is root.
 *
 * <p>As root, commands are wrapped in {@code setpriv}, which execs the program in place, so the {@link Process} the
 * launcher holds is the server itself and signals reach it directly; the directories the programs write are handed
 * to the account. Thread-safe: the account is looked up once, under the class's lock.
 */
final class PgAccount {

    private static final String NAME = "postgres";
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    // Looked up on first use; null when the JVM is not root.
    private static String[] ids;
    private static boolean resolved;

    private PgAccount() {}

    /** wrap returns {@code command} to run as the account: unchanged unless this JVM is root. */
    static List<String> wrap(List<String> command) {
        String[] uidGid = ids();
        if (uidGid == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>();
        wrapped.add(SETPRIV.toString());
        wrapped.add("--reuid=" + uidGid[0]);
        wrapped.add("--regid=" + uidGid[1]);
        wrapped.add("--init-groups");
        wrapped.add("--");
        wrapped.addAll(command);
        return wrapped;
    }

    /** handOver makes {@code path} the account's, so that the programs can write it; a no-op unless root. */
    static void handOver(Path path) {
        if (ids() == null) {
            return;
        }
        try {
            UserPrincipalLookupService lookup = path.getFileSystem().getUserPrincipalLookupService();
            PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
            UserPrincipal user = lookup.lookupPrincipalByName(NAME);
            GroupPrincipal group = lookup.lookupPrincipalByGroupName(ids()[1]);
            view.setOwner(user);
            view.setGroup(group);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hand " + path + " over to the OS user " + NAME, e);
        }
    }

    /** describe names the account, for log lines. */
    static String describe() {
        return ids() == null ? "this JVM's user" : "OS user " + NAME + " (uid " + ids()[0] + ")";
    }

    private static synchronized String[] ids() {
        if (resolved) {
            return ids;
        }
        if (ProcessControl.runningAsRoot()) {
            if (!Files.isExecutable(SETPRIV)) {
                throw new IllegalStateException("this JVM runs as root, which postgres and pgbouncer refuse, and "
                        + SETPRIV + " (Debian package util-linux) is missing to run them as the OS user " + NAME
                        + "; install util-linux or run the tests as an unprivileged user");
            }
            ids = new String[] {id("-u"), id("-g")};
        }
        resolved = true;
        return ids;
    }

    private static String id(String flag) {
        try {
            Process id = new ProcessBuilder("id", flag, NAME).redirectErrorStream(true).start();
            String out = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!id.waitFor(5, TimeUnit.SECONDS) || id.exitValue() != 0 || !out.matches("[0-9]+")) {
                throw new UserPrincipalNotFoundException(NAME);
            }
            return out;
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalStateException("this JVM runs as root, which postgres and pgbouncer refuse, and there"
                    + " is no OS user " + NAME + " to run them as; install the Debian package postgresql (it creates"
                    + " the user) or run the tests as an unprivileged user", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run id " + flag + " " + NAME, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while looking up the OS user " + NAME, e);
        }
    }
}
