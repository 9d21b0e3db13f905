package dev.leasehold.it.postgres;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * PgReaper ends every postgres and pgbouncer the launchers still own when the JVM exits, and deletes their
 * directories; thread-safe via a concurrent map.
 *
 * <p>A test JVM that is interrupted (Ctrl-C, a Failsafe timeout, System.exit in a test) never reaches close(), and
 * an orphaned postgres would keep its port, its directory and its shared memory. A SIGKILLed JVM runs no hooks;
 * nothing in plain Java can cover that case.
 */
final class PgReaper {

    private static final Map<Object, Runnable> LIVE = new ConcurrentHashMap<>();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private PgReaper() {}

    /** register runs {@code reap} at JVM exit unless {@link #unregister} comes first; {@code owner} is the key. */
    static void register(Object owner, Runnable reap) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(PgReaper::reapAll, "leasehold-postgres-reaper"));
        }
        LIVE.put(owner, reap);
    }

    /** unregister forgets {@code owner}, which has cleaned up after itself. */
    static void unregister(Object owner) {
        LIVE.remove(owner);
    }

    private static void reapAll() {
        for (Runnable reap : LIVE.values()) {
            try {
                reap.run();
            } catch (RuntimeException e) {
                // Best effort: one stubborn process must not stop the others from being ended.
            }
        }
    }
}
