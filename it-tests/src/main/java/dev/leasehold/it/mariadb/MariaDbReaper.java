package dev.leasehold.it.mariadb;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * MariaDbReaper kills every mariadbd the launcher still owns when the JVM exits; thread-safe via a concurrent set.
 *
 * <p>The MariaDB twin of the etcd launcher's reaper: a test JVM that is interrupted (Ctrl-C, a Failsafe timeout,
 * System.exit in a test) never reaches close(), and an orphaned mariadbd would keep its port, its datadir and
 * hundreds of megabytes of memory. A SIGKILLed JVM runs no hooks; nothing in plain Java can cover that case.
 */
final class MariaDbReaper {

    private static final Set<MariaDbServer> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private MariaDbReaper() {}

    static void register(MariaDbServer server) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(MariaDbReaper::reapAll, "leasehold-mariadb-reaper"));
        }
        LIVE.add(server);
    }

    static void unregister(MariaDbServer server) {
        LIVE.remove(server);
    }

    private static void reapAll() {
        for (MariaDbServer server : LIVE) {
            try {
                server.reap();
            } catch (RuntimeException e) {
                // Best effort: one stubborn server must not stop the others from being killed.
            }
        }
    }
}
