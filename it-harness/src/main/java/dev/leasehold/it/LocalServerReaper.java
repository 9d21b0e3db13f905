package dev.leasehold.it;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * LocalServerReaper ends every {@link LocalServer} still open when the JVM exits and deletes its directory;
 * thread-safe via a concurrent set.
 *
 * <p>The twin of the etcd launcher's reaper: a test JVM that is interrupted (Ctrl-C, a Failsafe timeout,
 * System.exit in a test) never reaches close(), and an orphaned mariadbd, postgres or pgbouncer would keep its port,
 * its directory and its memory. A SIGKILLed JVM runs no hooks; nothing in plain Java can cover that case.
 */
final class LocalServerReaper {

    private static final Set<LocalServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private LocalServerReaper() {}

    static void register(LocalServer server) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(LocalServerReaper::reapAll, "leasehold-server-reaper"));
        }
        LIVE.add(server);
    }

    static void unregister(LocalServer server) {
        LIVE.remove(server);
    }

    private static void reapAll() {
        for (LocalServer server : LIVE) {
            try {
                server.reap();
            } catch (RuntimeException e) {
                // Best effort: one stubborn server must not stop the others from being ended.
            }
        }
    }
}
