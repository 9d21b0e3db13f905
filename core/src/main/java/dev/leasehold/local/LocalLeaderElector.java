package dev.leasehold.local;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import java.util.SplittableRandom;
import java.util.function.Supplier;

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

  /** builder starts configuring an elector. */
  public static Builder builder() {
    return new Builder();
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
    private Supplier<Scheduler> scheduler = ThreadScheduler::new;
    private Long randomSeed;

    private Builder() {}

    /** store sets the store to elect on (required); electors elect among those sharing it. */
    public Builder store(LocalStore store) {
      this.store = store;
      return this;
    }

    /** scheduler replaces the threads and clock the elector runs on; for tests. */
    Builder scheduler(Supplier<Scheduler> scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /** randomSeed fixes the retry jitter; for tests. */
    Builder randomSeed(long seed) {
      this.randomSeed = seed;
      return this;
    }

    /** build validates the settings and creates an elector that has not started. */
    public LeaderElector build() {
      ElectorConfig validated = buildConfig();
      if (store == null) {
        throw new IllegalArgumentException(
            "store must be set (LocalStore.create()), but was null");
      }
      if (store.isClosed()) {
        throw new IllegalArgumentException("store must be open, but was closed");
      }
      LocalPort port = new LocalPort(store, validated.electionKey(), validated.candidateId());
      ElectionMachine machine =
          new ElectionMachine(
              ProtocolConfig.from(validated),
              randomSeed != null ? new SplittableRandom(randomSeed) : new SplittableRandom());
      String name = validated.candidateId() + "@" + validated.electionKey();
      return new ElectorRuntime(validated, machine, port, scheduler.get(), name);
    }
  }
}
