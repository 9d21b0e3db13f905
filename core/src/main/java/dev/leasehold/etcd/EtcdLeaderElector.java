package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * EtcdLeaderElector builds {@link LeaderElector}s that run the Leasehold protocol against
 * etcd: the etcd machine ({@code ElectionMachine}) on the shared runtime, with jetcd calls
 * behind the store port.
 *
 * <p>One event-loop thread per elector owns the machine; jetcd callbacks only enqueue inputs
 * on it, and nothing ever blocks a jetcd or Vert.x thread. Events reach listeners on a
 * separate dispatcher thread (or the executor given at subscription), never on the event loop
 * and never under a lock. The jetcd client of an elector built from endpoints is created at
 * {@code start()} and closed by {@code close()}; a client passed in is never closed.
 *
 * <p>Stateless and thread-safe; the electors it builds are thread-safe.
 */
public final class EtcdLeaderElector {
  private EtcdLeaderElector() {}

  /**
   * builder starts configuring an elector.
   *
   * @return a new builder with the neutral defaults and no endpoint or client yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * of creates an elector that has not started from the neutral settings and how to reach etcd;
   * it makes no connection and starts no thread until {@link LeaderElector#start()}. Every
   * elector made from one {@code settings} with endpoints makes its own client.
   *
   * @param config the backend-neutral settings, validated
   * @param settings how to reach etcd
   * @return the elector, not started
   * @throws IllegalArgumentException if the lease TTL is not a whole number of seconds, at
   *     least 1 s (etcd grants seconds), or an argument is null
   */
  public static LeaderElector of(ElectorConfig config, EtcdSettings settings) {
    return create(EtcdClientSettings.byEtcdRule(config, settings), settings);
  }

  /**
   * renewInterval is how long after its last confirmed renewal's send time an etcd MASTER with
   * this config renews (PROTOCOL.md §4.4): as late as leaves 2 s of its deadline window for
   * riding out an etcd leader election, between TTL/6 and TTL/2 (of the requested TTL; etcd may
   * grant a longer one).
   *
   * @param config the settings whose lease TTL sets the interval
   * @return the delay from a renewal's send time to the next renewal, between TTL/6 and TTL/2
   */
  public static Duration renewInterval(ElectorConfig config) {
    return Duration.ofNanos(
        ProtocolConfig.from(config).masterRenewIntervalNanos(config.leaseTtl().toSeconds()));
  }

  private static LeaderElector create(ElectorConfig validated, EtcdSettings settings) {
    Client given = settings.givenClient();
    EtcdClientFactory factory = settings.factory(validated.rpcTimeout());
    Supplier<Client> clients = given == null ? factory : () -> given;
    // Made once everything is validated: a scheduler starts threads.
    Scheduler threads = new ThreadScheduler();
    EtcdPort store =
        new EtcdPort(
            clients, given == null, validated.electionKey(), validated.candidateId(), validated.priority(),
            new EtcdReasons(validated.electionKey(), factory),
            new Reconnect(threads::nanoTime, validated.retryBackoffMax().toNanos()),
            Builder.hedgeAfter(validated.rpcTimeout()),
            given == null ? null : ColdLane.of(given, validated.electionKey()));
    ElectionMachine machine = new ElectionMachine(ProtocolConfig.from(validated), new SplittableRandom());
    String name = validated.candidateId() + "@" + validated.electionKey();
    return new ElectorRuntime(validated, machine, store, threads, name);
  }

  /**
   * Builder configures an etcd {@link LeaderElector}: the backend-neutral settings (inherited
   * from {@link ElectorConfig.Settings}, or all at once with {@code config(ElectorConfig)})
   * plus etcd's own ({@link EtcdSettings}). {@link #build()} validates everything and names the
   * field and the value of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends EtcdClientSettings<Builder> {
    private Builder() {}

    /**
     * build validates the settings, reads the TLS files, and creates an elector that has not
     * started, as {@link EtcdLeaderElector#of} does with the two values.
     *
     * @return the elector, not started
     * @throws IllegalArgumentException naming the field or option and its value
     */
    public LeaderElector build() {
      ElectorConfig validated = etcdConfig();
      return create(validated, settings());
    }

    /**
     * hedgeAfter is how long a renewal's call waits for its answer before a copy goes to another
     * member: a fifth of the rpc timeout, at least 20 ms (a healthy member answers in a few).
     */
    static long hedgeAfter(Duration rpcTimeout) {
      return Math.max(20_000_000L, rpcTimeout.toNanos() / 5);
    }
  }
}
