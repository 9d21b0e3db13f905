package dev.leasehold.it.postgres;

import dev.leasehold.it.ProcessControl;
import dev.leasehold.it.Signals;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * PgProcess starts the PostgreSQL programs and pgbouncer as {@link PgAccount}, and signals a server's whole process
 * tree; stateless and thread-safe.
 *
 * <p>A postmaster serves every session from a backend process it forked. Freezing or crashing "the server" therefore
 * means every process of the tree: SIGSTOP to the postmaster alone leaves running backends answering their
 * sessions, and SIGKILL to it alone leaves backends attached to its shared memory, which a restart on the same
 * data directory refuses ("pre-existing shared memory block is still in use").
 */
final class PgProcess {

    private PgProcess() {}

    /**
     * spawn starts {@code command} as the account with stdout and stderr appended to {@code logFile}, after a header
     * line; {@code environment} is added to a child environment without the libpq {@code PG*} variables.
     */
    static Process spawn(List<String> command, Map<String, String> environment, Path logFile, String reason) {
        ProcessBuilder builder = new ProcessBuilder(PgAccount.wrap(command));
        // PGHOST, PGPORT, PGDATA, PGUSER, PGPASSWORD... would change what the programs connect to or run on.
        builder.environment().keySet().removeIf(key -> key.startsWith("PG"));
        builder.environment().putAll(environment);
        return ProcessControl.spawn(builder, logFile,
                reason + " as " + PgAccount.describe() + ": " + String.join(" ", command));
    }

    /** run spawns {@code command} and waits for it to exit 0; see {@link ProcessControl#awaitSuccess}. */
    static void run(List<String> command, Map<String, String> environment, Path logFile, String reason,
            Duration timeout) {
        ProcessControl.awaitSuccess(spawn(command, environment, logFile, reason),
                Path.of(command.get(0)).getFileName().toString(), logFile, timeout);
    }

    /** stopTree freezes the process and everything it forked with SIGSTOP, and returns once all are stopped. */
    static void stopTree(Process root) {
        // The parent first: once it is stopped it forks no new child between the listing and the signal.
        Signals.send(root, "STOP");
        ProcessControl.awaitStopped(root, true);
        List<Long> children = descendants(root);
        signalAll("STOP", children);
        children.forEach(pid -> ProcessControl.awaitStopped(pid, true));
    }

    /** continueTree lets a tree frozen by {@link #stopTree} run again with SIGCONT. */
    static void continueTree(Process root) {
        List<Long> all = new ArrayList<>(descendants(root));
        all.add(root.pid());
        signalAll("CONT", all);
        all.forEach(pid -> ProcessControl.awaitStopped(pid, false));
    }

    /** killTree sends SIGKILL to the process and everything it forked, and returns once all are gone. */
    static void killTree(Process root) {
        List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
        all.add(root.toHandle());
        // SIGKILL reaches stopped processes too.
        all.forEach(ProcessHandle::destroyForcibly);
        Instant deadline = Instant.now().plusSeconds(10);
        for (ProcessHandle process : all) {
            while (running(process) && Instant.now().isBefore(deadline)) {
                ProcessControl.sleepQuietly(5);
            }
            if (running(process)) {
                throw new IllegalStateException("pid " + process.pid() + " still alive 10 s after SIGKILL");
            }
        }
        // Reap the root: until then Process.isAlive() may still say true for an instant.
        ProcessControl.waitFor(root, Duration.ofSeconds(10));
    }

    /** running is isAlive without zombies: a killed backend's new parent reaps it when it gets round to it. */
    static boolean running(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"),
                    StandardCharsets.UTF_8);
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return process.isAlive();
        }
    }

    /** signalAll signals every pid that still exists: a backend may end between the listing and the signal. */
    private static void signalAll(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        try {
            Signals.send(signal, pids);
        } catch (IllegalStateException oneWasGone) {
            // kill(1) signalled every pid it could and failed for the gone ones; resend only what looks alive.
            List<Long> alive = pids.stream()
                    .filter(pid -> ProcessHandle.of(pid).map(PgProcess::running).orElse(false))
                    .toList();
            if (!alive.isEmpty()) {
                Signals.send(signal, alive);
            }
        }
    }

    private static List<Long> descendants(Process root) {
        return root.descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
    }
}
