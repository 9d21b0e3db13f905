package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.ProtocolConfig;
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

  /** builder starts configuring an elector. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builder configures an etcd {@link LeaderElector}: the backend-neutral settings (inherited
   * from {@link ElectorConfig.Settings}, or all at once with {@code config(ElectorConfig)})
   * plus etcd's own. {@link #build()} validates everything and names the field and the value
   * of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends EtcdClientSettings<Builder> {
    private Supplier<Scheduler> scheduler = ThreadScheduler::new;
    private Long randomSeed;

    private Builder() {}

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

    /**
     * build validates the settings, reads the TLS files, and creates an elector that has not
     * started; it makes no connection and starts no thread until {@link LeaderElector#start()}.
     */
    public LeaderElector build() {
      ElectorConfig validated =
          buildConfig(Duration.ofSeconds(1), Duration.ofSeconds(1), "etcd grants seconds");
      check();
      Client given = givenClient();
      EtcdClientFactory factory = given == null ? factory(validated.rpcTimeout()) : null;
      Supplier<Client> clients = given == null ? factory : () -> given;
      // Made once everything is validated: a scheduler starts threads.
      Scheduler threads = scheduler.get();
      EtcdStore store =
          new EtcdStore(
              clients, given == null, validated.electionKey(), validated.candidateId(),
              new EtcdReasons(validated.electionKey(), factory),
              new Reconnect(threads::nanoTime, validated.retryBackoffMax().toNanos()),
              hedgeAfter(validated.rpcTimeout()));
      ElectionMachine machine =
          new ElectionMachine(
              ProtocolConfig.from(validated),
              randomSeed != null ? new SplittableRandom(randomSeed) : new SplittableRandom());
      String name = validated.candidateId() + "@" + validated.electionKey();
      return new ElectorRuntime(validated, machine, store, threads, name);
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
