package dev.leasehold.etcd;

import dev.leasehold.Durations;
import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorHealth;
import dev.leasehold.LeaderElector;
import dev.leasehold.Renewal;
import dev.leasehold.Subscription;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.etcd.protocol.SessionElection;
import dev.leasehold.etcd.protocol.SessionLease;
import dev.leasehold.etcd.protocol.SessionMember;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.HealthChecks;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Lifecycle;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.SharedThreads;
import dev.leasehold.runtime.ThreadScheduler;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdSession is one etcd lease serving many elections (PROTOCOL.md §11): a service with one
 * election per shard or tenant pays for one lease, one keep-alive and confirming read per
 * renewal, one watch and five threads (the lease's event loop, the elections' event loop, a
 * dispatcher, and two for the etcd client it makes), however many elections it runs. The lease
 * has a loop of its own so that its renewals never wait behind thousands of elections' inputs.
 *
 * <p>Each {@link #election(String)} is a full {@link LeaderElector} on the key {@code prefix +
 * name}: events, {@code whenLeading}, {@code runWhileLeader}, a fencing token per term (the
 * key's mod revision). Its {@code resign()} and {@code close()} delete only its own key, with a
 * transaction fenced on that token; the session's lease ending (its deadline passing without a
 * confirmed renewal, or etcd saying it is gone) ends every term on it, each with its own event,
 * and the session grants a new lease. Unlike {@link EtcdLeaderElector}, session elections keep
 * no queue and no standby lease: when a key is deleted, every session campaigning for it sends
 * one compare-and-swap. With {@link Builder#spread(boolean) spread(true)} the sessions on one
 * prefix share the elections, and one whose health check fails hands its elections to the
 * healthy ones (PROTOCOL.md §11.7).
 *
 * <pre>{@code
 * try (EtcdSession session = EtcdSession.builder()
 *     .endpoints("http://127.0.0.1:2379").prefix("/shards/").build()) {
 *   LeaderElector shard7 = session.election("7");
 *   shard7.onLeadershipChanged(e -> ...);
 *   shard7.start();
 *   session.start();
 * }
 * }</pre>
 *
 * <p>Thread-safe: every method may be called from any thread. All elections run on the
 * session's one elections' event-loop thread, the lease and the watch on the lease's; their
 * listeners run on its one dispatcher thread (or the executor given at subscription).
 */
public final class EtcdSession implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);
  /**
   * ELECTIONS_LOG is the logger every session election writes its lifecycle and events to: one
   * name, so that a service with thousands of elections can quiet them all at once.
   */
  static final String ELECTIONS_LOG = EtcdSession.class.getName() + ".elections";
  private static final Logger electionsLog = LoggerFactory.getLogger(ELECTIONS_LOG);

  private final ElectorConfig template;
  private final ProtocolConfig protocol;
  // The elections' loop and the dispatcher every runtime of the session shares.
  private final ThreadScheduler threads;
  private final Scheduler shared;
  // The lease's own loop (its dispatcher is the elections' too).
  private final ThreadScheduler leaseThreads;
  private final Scheduler leaseLoop;
  private final Client client;
  private static final int CLIENT_THREADS = 2;
  private static final AtomicInteger THREADS = new AtomicInteger();
  // The session made the client (and its pool), and closes both; null for a caller's client.
  private final ExecutorService clientPool;
  private final SessionHub hub;
  private final ElectorRuntime lease;
  private final ByteSequence value;
  private final SplittableRandom random;
  private final Map<String, ElectorRuntime> elections = new ConcurrentHashMap<>();
  private final Lifecycle lifecycle;

  // Spreading's weight; 0: spreading off.
  private final int weight;
  // A spreading session's health check (null: none), polled on the lease's loop.
  private final HealthChecks healthChecks;

  private EtcdSession(
      ElectorConfig template, Client client, ExecutorService clientPool, EtcdReasons reasons, int weight) {
    this.weight = weight;
    this.template = template;
    this.protocol = ProtocolConfig.from(template);
    this.client = client;
    this.clientPool = clientPool;
    this.lifecycle = new Lifecycle("session on " + template.electionKey(), log);
    this.threads = new ThreadScheduler();
    this.shared = new SharedThreads(threads, threads);
    this.leaseThreads = new ThreadScheduler();
    this.leaseLoop = new SharedThreads(leaseThreads, threads);
    this.value = ByteSequence.from(template.candidateId(), StandardCharsets.UTF_8);
    this.random = new SplittableRandom();
    EtcdPort leaseCalls =
        new EtcdPort(() -> client, false, template.electionKey(), template.candidateId(), reasons,
            null, EtcdLeaderElector.Builder.hedgeAfter(template.rpcTimeout()));
    this.hub = new SessionHub(client, leaseCalls, template.electionKey(), leaseLoop, shared::execute,
        template.retryBackoffInitial().toNanos(), template.rpcTimeout().toNanos(), weight, template.candidateId());
    // The health check is the session's (its lease loop polls it), not the lease's nor an
    // election's: they would each poll it, and refuse it (they hand no term to a queue).
    ElectorConfig leaseConfig =
        ElectorConfig.builder().config(template).closeOnShutdown(false).healthCheck(null).build();
    this.healthChecks = template.healthCheck().isPresent()
        ? new HealthChecks(template, leaseLoop, in -> hub.healthChanged((Input.HealthChanged) in), log,
            template.candidateId() + "@" + template.electionKey() + "*",
            "leaving the fleet, and moving its elections to the healthy members",
            "back in the fleet: spreading gives it its share")
        : null;
    this.lease = new ElectorRuntime(leaseConfig, new SessionLease(protocol, random.split()), hub, leaseLoop,
        template.candidateId() + "@" + template.electionKey() + "*");
  }

  /**
   * builder starts configuring a session.
   *
   * @return a new builder with the neutral defaults and no prefix, endpoint or client yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * of makes a session, and its client unless {@code settings} give one, from the settings every
   * election of it shares ({@code config.electionKey()} is the prefix) and how to reach etcd;
   * nothing runs until {@link #start()}.
   *
   * @param config the settings every election of the session shares; its election key is the prefix
   * @param settings how to reach etcd
   * @return the session, not started
   * @throws IllegalArgumentException if the lease TTL is not a whole number of seconds, at
   *     least 1 s (etcd grants seconds), or an argument is null
   * @throws UnsupportedOperationException if {@code config} sets a priority, a preemption or a
   *     health check, which a session's elections cannot carry (they keep no queue); a health
   *     check needs spreading ({@link #spreading})
   */
  public static EtcdSession of(ElectorConfig config, EtcdSettings settings) {
    return create(EtcdClientSettings.byEtcdRule(config, settings), settings, 0);
  }

  /**
   * spreading makes a session as {@link #of} does, with spreading on and this member's {@code
   * weight} ({@link Builder#spread(boolean)}, {@link Builder#weight(int)}).
   *
   * @param config the neutral settings; its election key is the prefix of the session's elections
   * @param settings the etcd settings: endpoints, TLS, credentials, or a client of the caller's
   * @param weight this member's weight, from 1 to {@link Builder#MAX_WEIGHT}
   * @return the session, not started; the caller closes it
   * @throws IllegalArgumentException as {@link #of} does, or if the weight is out of range
   * @throws UnsupportedOperationException if {@code config} sets a priority or a preemption (a
   *     health check is taken: the session yields when unhealthy by moving its elections)
   */
  public static EtcdSession spreading(ElectorConfig config, EtcdSettings settings, int weight) {
    Builder.checkWeight(weight);
    return create(EtcdClientSettings.byEtcdRule(config, settings), settings, weight);
  }

  /**
   * refusePlacement throws for the placement settings a session's elections cannot carry: an
   * election of a session keeps no queue of its own candidates (PROTOCOL.md §11.2), so a
   * priority, a preemption or, without spreading, a health check's yield would be ignored, which
   * is worse than refused. A session places its elections by spreading ({@link Builder#spread},
   * {@link Builder#weight}); a spreading session yields when unhealthy by moving its elections to
   * the healthy members (PROTOCOL.md §11.7).
   */
  private static void refusePlacement(ElectorConfig c, int weight) {
    String why = " on an etcd session (its elections keep no queue of candidates to rank or to hand over to;"
        + " spread(true) and weight(int) place a session's elections), but was ";
    if (c.priority() != 0) {
      throw new UnsupportedOperationException("priority is not supported" + why + c.priority());
    }
    if (c.preemptAfter().isPresent()) {
      throw new UnsupportedOperationException(
          "preemptAfter is not supported" + why + Durations.human(c.preemptAfter().get()));
    }
    if (c.healthCheck().isPresent() && weight == 0) {
      throw new UnsupportedOperationException("healthCheck needs spread(true) on an etcd session (an unhealthy"
          + " session yields by moving its elections to the healthy members of its fleet; without spreading it"
          + " has none to move them to), but was set");
    }
  }

  private static EtcdSession create(ElectorConfig validated, EtcdSettings settings, int weight) {
    refusePlacement(validated, weight);
    Client given = settings.givenClient();
    if (given != null) {
      return new EtcdSession(validated, given, null, new EtcdReasons(validated.electionKey(), null), weight);
    }
    EtcdClientFactory factory = settings.factory(validated.rpcTimeout());
    // A fixed pool, so that thousands of calls in flight (every election's first campaign)
    // do not grow jetcd's default cached pool by a thread each.
    ExecutorService pool = Executors.newFixedThreadPool(CLIENT_THREADS, r -> {
      Thread t = new Thread(r, "leasehold-etcd-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      return new EtcdSession(
          validated, factory.get(pool), pool, new EtcdReasons(validated.electionKey(), factory), weight);
    } catch (RuntimeException e) {
      pool.shutdownNow();
      throw e;
    }
  }

  /**
   * prefix is the key prefix every election of this session lives under.
   *
   * @return the prefix, as configured
   */
  public String prefix() {
    return template.electionKey();
  }

  /**
   * election makes the elector of the key {@code prefix + name} on this session; it campaigns
   * once both it and the session are started. Thread-safe.
   *
   * @param name the election's name under the prefix, not blank
   * @return the elector, not started
   * @throws IllegalArgumentException if {@code name} is blank, or an open election of this
   *     session already has that name (two would share one lease and fight over one key)
   * @throws IllegalStateException if the session is closed
   */
  public LeaderElector election(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "name must be a non-blank election name, but was " + (name == null ? "null" : "\"" + name + "\""));
    }
    if (weight > 0 && name.startsWith(SessionMember.MEMBERS)) {
      throw new IllegalArgumentException("name must not start with \"" + SessionMember.MEMBERS
          + "\" on a spreading session (its member keys live there), but was \"" + name + "\"");
    }
    if (lifecycle.isClosing()) {
      throw new IllegalStateException("session on " + prefix() + " is closed");
    }
    String key = prefix() + name;
    ElectorConfig c =
        ElectorConfig.builder().config(template).electionKey(key).closeOnShutdown(false).healthCheck(null).build();
    ElectorRuntime r = new ElectorRuntime(c, new SessionElection(protocol, random.split()),
        new SessionElectionPort(hub, key, value), shared, template.candidateId() + "@" + key, electionsLog);
    if (elections.putIfAbsent(key, r) != null) {
      throw new IllegalArgumentException(
          "name must be unique among this session's open elections, but \"" + name + "\" is taken");
    }
    r.whenClosed().thenRun(() -> elections.remove(key, r));
    if (lifecycle.isClosing()) {
      r.close();
      throw new IllegalStateException("session on " + prefix() + " is closed");
    }
    return r;
  }

  /** start grants the session's lease and opens its watch; again, or after close, it does nothing. */
  public void start() {
    if (lifecycle.start(template.closeOnShutdown(), this::close)) {
      lease.start();
      if (healthChecks != null) {
        healthChecks.start();
      }
    }
  }

  /**
   * isLive tells whether the session holds a lease it has not yet found ended (its DEADLINE
   * timer ends it as the deadline passes).
   *
   * @return true while the session's lease is believed alive
   */
  public boolean isLive() {
    return lease.state() == dev.leasehold.ElectorState.MASTER;
  }

  /**
   * health is the session lease's health: its renewals and the store's reachability; with a
   * health check (spreading only), {@link ElectorHealth#unhealthy()} says while it holds the
   * session unhealthy why, and whether the session still leads elections for want of a healthy
   * member to hand them to.
   *
   * @return a new snapshot, never null
   */
  public ElectorHealth health() {
    ElectorHealth h = lease.health();
    return new ElectorHealth(h.state(), h.running(), h.backend(), h.leader(), h.sinceRenewal(),
        h.storeReachable(), h.storeFailure(), h.fallback(), Optional.ofNullable(hub.unhealthy()));
  }

  /**
   * onRenewal subscribes to the session lease's confirmed renewals, on the dispatcher thread.
   *
   * @param listener called with each confirmed renewal, not null
   * @return the subscription; close it to stop the reports
   */
  public Subscription onRenewal(Consumer<Renewal> listener) {
    return lease.onRenewal(listener);
  }

  /**
   * elections is how many of this session's elections are open.
   *
   * @return the number of elections made and not yet closed
   */
  public int elections() {
    return elections.size();
  }

  /**
   * close ends every election (each told CLOSED), revokes the lease (every key goes with it),
   * stops the threads and closes the client if the session made it. Idempotent; waits about
   * 4 × the RPC timeout + 2 s at most.
   */
  @Override
  public void close() {
    if (lifecycle.beginClose()) {
      if (healthChecks != null) {
        healthChecks.stop();
      }
      long bound = 4 * template.rpcTimeout().toNanos() + TimeUnit.SECONDS.toNanos(2);
      try {
        // The lease's close tells every election Ended(CLOSED) (each stops with one event and
        // no delete), then revokes the lease; only then are the elections closed, after that
        // news on their loop.
        lease.closeAsync().toCompletableFuture().get(bound, TimeUnit.NANOSECONDS);
        try {
          shared.execute(() -> elections.values().forEach(ElectorRuntime::closeAsync));
        } catch (RuntimeException loopGone) {
          elections.values().forEach(ElectorRuntime::closeAsync);
        }
        for (ElectorRuntime e : List.copyOf(elections.values())) {
          e.whenClosed().toCompletableFuture().get(bound, TimeUnit.NANOSECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        lifecycle.warnLate(e);
      }
      for (ThreadScheduler t : List.of(leaseThreads, threads)) {
        t.shutdown();
        try {
          t.awaitTermination();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (clientPool != null) {
        client.close();
        clientPool.shutdown();
      }
      lifecycle.finished();
    }
    if (!threads.onDispatcher()) {
      lifecycle.whenClosed().toCompletableFuture().join();
    }
  }

  /**
   * Builder configures a session: the elector settings every election of it shares ({@code
   * electionKey} is the prefix, see {@link #prefix(String)}), and how to reach etcd ({@link
   * EtcdSettings}).
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends EtcdClientSettings<Builder> {
    /** MAX_WEIGHT is the largest weight a member may have. */
    public static final int MAX_WEIGHT = 1_000_000;

    private boolean spread;
    private int weight = 1;

    private Builder() {}

    /**
     * spread turns spreading on (off by default; PROTOCOL.md §11.7): the session registers as a
     * member of the fleet under {@code prefix + "members/"} and moves elections to and from the
     * other members, so that each holds its share of them, weighted by {@link #weight(int)}. Off,
     * the session registers nothing and moves nothing. A spreading session takes a {@code
     * healthCheck}: while it holds the session unhealthy, the session leaves the fleet and moves
     * every election it leads to the healthy members (or, with none, keeps them and says so in
     * {@link EtcdSession#health()}).
     *
     * @param spread true to spread this session's elections over the fleet's members
     * @return this builder, for chaining
     */
    public Builder spread(boolean spread) {
      this.spread = spread;
      return this;
    }

    /**
     * weight sets this member's weight when spreading (default 1, from 1 to {@link
     * #MAX_WEIGHT}): its share of the fleet's N elections is the floor or the ceiling of N ×
     * weight / total weight.
     *
     * @param weight this member's weight, from 1 to {@link #MAX_WEIGHT}; it matters only when
     *     spreading
     * @return this builder, for chaining
     * @throws IllegalArgumentException naming the value if it is out of range
     */
    public Builder weight(int weight) {
      this.weight = checkWeight(weight);
      return this;
    }

    static int checkWeight(int weight) {
      if (weight < 1 || weight > MAX_WEIGHT) {
        throw new IllegalArgumentException("weight must be from 1 to " + MAX_WEIGHT + ", but was " + weight);
      }
      return weight;
    }

    /**
     * prefix sets the key prefix of the session's elections (required; end it with "/").
     *
     * @param prefix the prefix, for example {@code /services/}
     * @return this builder, for chaining
     */
    public Builder prefix(String prefix) {
      return electionKey(prefix);
    }

    /**
     * build validates the settings and makes the session (and its client, unless one was
     * given), as {@link EtcdSession#of} does with the two values; nothing runs until {@link
     * EtcdSession#start()}.
     *
     * @return the session, not started
     * @throws IllegalArgumentException naming the field and value of a bad setting
     * @throws UnsupportedOperationException naming a priority or preemption set on the builder
     *     (a session's elections keep no queue to carry them, and spreading places them instead),
     *     or a health check without {@link #spread(boolean) spread(true)}
     */
    public EtcdSession build() {
      ElectorConfig validated = etcdConfig();
      return create(validated, settings(), spread ? weight : 0);
    }
  }
}
