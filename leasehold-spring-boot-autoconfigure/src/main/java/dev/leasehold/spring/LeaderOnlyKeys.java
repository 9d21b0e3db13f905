package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipListener;
import dev.leasehold.etcd.EtcdSession;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * LeaderOnlyKeys holds the elections of {@code @LeaderOnly(key = ...)}: the keys found on bean
 * methods as their proxies are made, and, while the context runs, one spreading {@link
 * EtcdSession} with an election per key, each heard by the given listeners (the interrupting
 * of calls whose term ended, the Spring events).
 *
 * <p>Thread-safe: the keys and elections are concurrent maps; the session is published through a
 * volatile field, and opening and closing are synchronized.
 */
final class LeaderOnlyKeys {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private final Map<String, LeaderElector> elections = new ConcurrentHashMap<>();
  private volatile EtcdSession session;
  private volatile Function<LeaderElector, List<LeadershipListener>> listeners = e -> List.of();

  /** register records a key found on a {@code @LeaderOnly} method. */
  void register(String key) {
    keys.add(key);
  }

  /** keys is the keys registered so far, sorted. */
  Set<String> keys() {
    return new TreeSet<>(keys);
  }

  /**
   * elector is the key's election while the session runs (made at once for a key registered
   * late, from a lazy bean), else null: nobody leads it here, and the call is skipped.
   */
  LeaderElector elector(String key) {
    EtcdSession s = session;
    if (s == null) {
      return null;
    }
    return elections.computeIfAbsent(key, k -> {
      LeaderElector e = s.election(k);
      listeners.apply(e).forEach(e::onLeadershipChanged);
      e.start();
      return e;
    });
  }

  /**
   * open starts an election per registered key on {@code s}, each heard by the listeners {@code
   * heardBy} gives for it, then the session itself.
   */
  synchronized void open(EtcdSession s, Function<LeaderElector, List<LeadershipListener>> heardBy) {
    listeners = heardBy;
    session = s;
    keys().forEach(this::elector);
    s.start();
  }

  /** close closes the session (its revoke frees every key at once) and forgets its elections. */
  synchronized void close() {
    EtcdSession s = session;
    session = null;
    if (s != null) {
      s.close();
    }
    elections.clear();
  }
}
