package dev.leasehold.it;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * EtcdReaper kills every etcd process the launcher still owns when the JVM exits; thread-safe via a concurrent set.
 *
 * <p>A test JVM that is interrupted (Ctrl-C, Surefire timeout, System.exit in a test) never reaches close(), and an
 * orphaned etcd would keep its ports and data dir and confuse the next run. SIGKILL'ed JVMs run no hooks; nothing in
 * plain Java can cover that case.
 */
final class EtcdReaper {

    private static final Set<EtcdMember> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private EtcdReaper() {}

    static void register(EtcdMember member) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(EtcdReaper::reapAll, "leasehold-etcd-reaper"));
        }
        LIVE.add(member);
    }

    static void unregister(EtcdMember member) {
        LIVE.remove(member);
    }

    private static void reapAll() {
        for (EtcdMember member : LIVE) {
            try {
                member.reap();
            } catch (RuntimeException e) {
                // Best effort: one stubborn member must not stop the others from being killed.
            }
        }
    }
}
