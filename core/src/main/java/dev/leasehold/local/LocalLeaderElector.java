package dev.leasehold.local;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.ThreadScheduler;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * LocalLeaderElector builds {@link LeaderElector}s that run the Leasehold protocol against a
 * {@link LocalStore}: the same etcd
 * machine ({@code ElectionMachine}) on the same runtime as {@code EtcdLeaderElector}, with the
 * in-process store behind the store port. It has the same events, fencing tokens,
 * {@link dev.leasehold.Leadership}, resign and close; electors sharing one store and one key elect exactly
 * one leader among themselves, and only among themselves (not across processes, JVMs or class
 * loaders with their own store). Guard leader-only effects with
 * {@link LocalStore#runFenced}.
 *
 * <p>One event-loop thread per elector owns the machine; store replies only enqueue inputs on
 * it. Events reach listeners on a separate dispatcher thread (or the executor given at
 * subscription), never on the event loop and never under a lock. Closing an elector does not
 * close its store.
 *
 * <p>Stateless and thread-safe; the electors it builds are thread-safe.
 */
public final class LocalLeaderElector {
  private LocalLeaderElector() {}

  /**
   * builder starts configuring an elector.
   *
   * @return a new builder with the neutral defaults and no store yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * of creates an elector that has not started, on {@code store} with the neutral settings; the
   * store is its only setting of its own.
   *
   * @param config the backend-neutral settings, validated
   * @param store the store to elect on, open
   * @return the elector, not started
   * @throws IllegalArgumentException if the lease TTL is not a whole number of seconds, at
   *     least 1 s (the local store grants seconds, as etcd does), or the store is missing or
   *     closed
   */
  public static LeaderElector of(ElectorConfig config, LocalStore store) {
    if (config == null) {
      throw new IllegalArgumentException("config must be set, but was null");
    }
    return new Builder().config(config).store(store).build();
  }

  /**
   * Builder configures a {@link LocalLeaderElector}: the store, plus the backend-neutral
   * settings (inherited from {@link ElectorConfig.Settings}, or all at once with
   * {@code config(ElectorConfig)}). The local store grants the TTL asked for, down to 1 s.
   * {@link #build()} validates everything and names the field and the value of the first
   * problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private LocalStore store;

    private Builder() {}

    /**
     * store sets the store to elect on (required); electors elect among those sharing it.
     *
     * @param store the store, shared by the electors that elect among each other
     * @return this builder, for chaining
     */
    public Builder store(LocalStore store) {
      this.store = store;
      return this;
    }

    /**
     * build validates the settings and creates an elector that has not started.
     *
     * @return the elector, not started
     * @throws IllegalArgumentException naming the field and its value, or when the store is missing
     *     or closed
     */
    public LeaderElector build() {
      ElectorConfig validated =
          buildConfig(
              Duration.ofSeconds(1), Duration.ofSeconds(1), "the local store grants seconds, as etcd does");
      if (store == null) {
        throw new IllegalArgumentException(
            "store must be set (LocalStore.create()), but was null");
      }
      if (store.isClosed()) {
        throw new IllegalArgumentException("store must be open, but was closed");
      }
      LocalPort port = new LocalPort(store, validated.electionKey(), validated.candidateId(), validated.priority());
      ElectionMachine machine = new ElectionMachine(ProtocolConfig.from(validated), new SplittableRandom());
      String name = validated.candidateId() + "@" + validated.electionKey();
      return new ElectorRuntime(validated, machine, port, new ThreadScheduler(), name);
    }
  }
}
