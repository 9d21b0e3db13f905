package dev.leasehold.select;

import dev.leasehold.Durations;
import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.etcd.EtcdSession;
import dev.leasehold.etcd.EtcdSettings;
import dev.leasehold.jdbc.JdbcLeaderElector;
import dev.leasehold.jdbc.JdbcSettings;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.runtime.ThreadScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Backends builds a {@link FallbackElector} from a list of backends in order of preference
 * (etcd, jdbc, local) and a {@link FallbackPolicy}: from code ({@link #builder()}), from
 * properties ({@link #fromProperties}) or from the environment ({@link #fromEnvironment}).
 *
 * <p>Fail closed by default: with {@link FallbackPolicy#FAIL_CLOSED} (one backend) an
 * unreachable store means retries with backoff and STORE_UNAVAILABLE, never a leader without
 * it. A fallback happens only under a policy named here, and is loud: one WARN line per switch,
 * a {@code FALLBACK} / {@code FALLBACK_ENDED} event, {@link FallbackElector#fallbackInForce()},
 * and the weaker {@code Leadership.guarantee()} of terms won after it. See {@link
 * FallbackPolicy} for what each policy can cost (two leaders while instances disagree on the
 * backend; local excludes only within one JVM).
 *
 * <pre>{@code
 * FallbackElector elector = Backends.fromProperties(Map.of(
 *         "leasehold.backends", "etcd,local",
 *         "leasehold.fallback", "fall-back-and-return",
 *         "leasehold.etcd.endpoints", "http://10.0.0.1:2379,http://10.0.0.2:2379",
 *         "leasehold.key", "/leasehold/orders-scheduler"))
 *     .build();
 * }</pre>
 *
 * <p>Stateless and thread-safe; builders are not thread-safe; the electors built are.
 */
public final class Backends {
  /** The key suffix of the probe election FALL_BACK_AND_RETURN runs on the preferred backend. */
  public static final String PROBE_SUFFIX = ".fallback-probe";

  private Backends() {}

  /**
   * builder starts configuring an elector in code.
   *
   * @return a new builder with the neutral defaults, no backend and the FAIL_CLOSED policy
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * fromProperties starts a builder from {@code leasehold.*} properties (the table in
   * docs/configuration.md, section "From properties or the environment"; the policies in
   * docs/backends.md, "Choosing a backend and a fallback policy"); other keys are ignored, an
   * unknown {@code leasehold.*} key is an error. Code may add to the builder before {@code
   * build()} (a {@code LocalStore}, a {@code DataSource}).
   *
   * @param properties the properties, keys such as {@code leasehold.backends} mapped to their
   *     values; keys outside {@code leasehold.*} are ignored
   * @return a builder holding what the properties set
   * @throws PropertyException naming the property and the value of the first problem; so does
   *     the builder's {@code build()}
   */
  public static Builder fromProperties(Map<String, String> properties) {
    Builder b = new Builder();
    b.properties = BackendProperties.apply(b, properties, false);
    return b;
  }

  /**
   * fromEnvironment starts a builder from {@code LEASEHOLD_*} variables: each property's name in
   * upper case with '.' and '-' as '_' ({@code LEASEHOLD_BACKENDS}, {@code
   * LEASEHOLD_ETCD_ENDPOINTS}, {@code LEASEHOLD_FALLBACK_RETURN_AFTER}); other variables are
   * ignored, unknown {@code LEASEHOLD_*} ones too (the {@code leasehold} command hands its child
   * {@code LEASEHOLD_FENCING_TOKEN} and others), so a misspelt name is not caught here as it is by
   * {@link #fromProperties}.
   *
   * @param environment the variables, names mapped to values, for example {@link System#getenv()}
   * @return a builder holding what the variables set
   * @throws PropertyException naming the variable and the value of the first problem; so does
   *     the builder's {@code build()}
   */
  public static Builder fromEnvironment(Map<String, String> environment) {
    Builder b = new Builder();
    b.properties = BackendProperties.apply(b, environment, true);
    return b;
  }

  /**
   * propertyNames lists every {@code leasehold.*} property {@link #fromProperties} reads, in the
   * order of the table in docs/configuration.md, section "From properties or the environment".
   *
   * @return the property names, unmodifiable
   */
  public static List<String> propertyNames() {
    return BackendProperties.names();
  }

  /**
   * fromEnvironment reads this process's environment ({@link System#getenv()}).
   *
   * @return a builder holding what the {@code LEASEHOLD_*} variables set
   * @throws PropertyException naming the variable and the value of the first problem
   */
  public static Builder fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /**
   * sharedLocalStore is the process-wide store of the local backend when no {@code local(store)}
   * is given, so that every such elector of this JVM elects among the others.
   *
   * @return the one shared store, made on first use
   */
  public static LocalStore sharedLocalStore() {
    return SharedLocal.STORE;
  }

  // Made on first use only: a store owns a (lazily started) daemon thread.
  private static final class SharedLocal {
    static final LocalStore STORE = LocalStore.create();
  }

  /**
   * Builder configures a {@link FallbackElector}: the backend-neutral settings (inherited from
   * {@link ElectorConfig.Settings}, shared by every backend), the backends in order, each
   * listed backend's own settings and the policy. {@link #build()} validates everything and
   * names the field (or property) and the value of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private List<Backend> backends;
    private Given<EtcdSettings> etcd;
    private Given<JdbcSettings> jdbc;
    private LocalStore local;
    private FallbackPolicy policy = FallbackPolicy.FAIL_CLOSED;
    private Duration fallbackAfter = Duration.ofSeconds(30);
    private Duration returnAfter = Duration.ofSeconds(10);
    // The properties this builder came from, which name its errors; null when made in code.
    private BackendProperties properties;

    private Builder() {}

    /**
     * backends sets the backends in order of preference (required, no repeats).
     *
     * @param backends the backends, most preferred first; at least one
     * @return this builder, for chaining
     */
    public Builder backends(Backend... backends) {
      this.backends = backends == null ? null : Arrays.asList(backends);
      return this;
    }

    /**
     * backends sets the backends in order of preference (required, no repeats).
     *
     * @param backends the backends, most preferred first; at least one
     * @return this builder, for chaining
     */
    public Builder backends(List<Backend> backends) {
      this.backends = backends == null ? null : new ArrayList<>(backends);
      return this;
    }

    /**
     * etcd gives the etcd backend's own settings (endpoints or client, TLS, credentials); every
     * etcd elector built from this builder is made from them with this builder's neutral
     * settings.
     *
     * @param etcd the etcd settings, used when {@link Backend#ETCD} is listed
     * @return this builder, for chaining
     */
    public Builder etcd(EtcdSettings etcd) {
      this.etcd = etcd == null ? null : new Given<>(etcd, null);
      return this;
    }

    /**
     * etcd takes the etcd backend's own settings from an etcd builder, as they are at this call
     * ({@link EtcdLeaderElector.Builder#settings()}): later changes to that builder do not reach
     * this one, and its neutral settings are not used (this builder's are). A problem in them is
     * reported by {@link #build()}, in its turn.
     *
     * @param etcd the builder to copy the etcd settings from
     * @return this builder, for chaining
     */
    public Builder etcd(EtcdLeaderElector.Builder etcd) {
      if (etcd == null) {
        this.etcd = null;
      } else {
        etcdFrom(etcd::settings);
      }
      return this;
    }

    /**
     * jdbc gives the MariaDB/MySQL backend's own settings (jdbcUrl or dataSource, table,
     * opt-ins), used like {@link #etcd(EtcdSettings)}'s; the election key must then suit a lease
     * row's name.
     *
     * @param jdbc the JDBC settings, used when {@link Backend#JDBC} is listed
     * @return this builder, for chaining
     */
    public Builder jdbc(JdbcSettings jdbc) {
      this.jdbc = jdbc == null ? null : new Given<>(jdbc, null);
      return this;
    }

    /**
     * jdbc takes the MariaDB/MySQL backend's own settings from a JDBC builder, as they are at this
     * call, like {@link #etcd(EtcdLeaderElector.Builder)}.
     *
     * @param jdbc the builder to copy the JDBC settings from
     * @return this builder, for chaining
     */
    public Builder jdbc(JdbcLeaderElector.Builder jdbc) {
      if (jdbc == null) {
        this.jdbc = null;
      } else {
        jdbcFrom(jdbc::settings);
      }
      return this;
    }

    // The settings properties make, or an etcd or JDBC builder's, with what they refused.
    void etcdFrom(Supplier<EtcdSettings> settings) {
      this.etcd = Given.of(settings);
    }

    void jdbcFrom(Supplier<JdbcSettings> settings) {
      this.jdbc = Given.of(settings);
    }

    /**
     * etcdSettings is the etcd backend's settings this builder holds (given to {@code etcd(...)}
     * or made from the {@code leasehold.etcd.*} properties), for a jetcd client of the
     * application's that should reach etcd as the elector does ({@link
     * EtcdSettings#clientBuilder()}).
     *
     * @return the settings, or empty when none were given
     * @throws IllegalArgumentException naming the option (or property) and the value, when the
     *     settings were refused
     */
    public Optional<EtcdSettings> etcdSettings() {
      if (etcd == null) {
        return Optional.empty();
      }
      try {
        return Optional.of(etcd.get());
      } catch (IllegalArgumentException e) {
        throw properties == null ? e : properties.named(e);
      }
    }

    /**
     * local sets the local backend's store; default {@link Backends#sharedLocalStore()}.
     *
     * @param store the store the local electors elect in; null for the shared one
     * @return this builder, for chaining
     */
    public Builder local(LocalStore store) {
      this.local = store;
      return this;
    }

    /**
     * fallback sets the policy; default {@link FallbackPolicy#FAIL_CLOSED}.
     *
     * @param policy what to do when the active backend stays unreachable
     * @return this builder, for chaining
     */
    public Builder fallback(FallbackPolicy policy) {
      this.policy = policy;
      return this;
    }

    /**
     * fallbackAfter sets how long the active backend must stay unreachable before a fallback;
     * default 30 s, at least the lease TTL. Longer rides out more outages on the stronger
     * backend; shorter restores a leader sooner and splits instances on shorter blips.
     *
     * @param fallbackAfter the outage that triggers a fallback, at least the lease TTL
     * @return this builder, for chaining
     */
    public Builder fallbackAfter(Duration fallbackAfter) {
      this.fallbackAfter = fallbackAfter;
      return this;
    }

    /**
     * returnAfter sets how long the preferred backend must answer the probe before a return
     * (FALL_BACK_AND_RETURN); default 10 s, at least 0. Longer avoids returning into a backend
     * that is flapping; each return costs one handover.
     *
     * @param returnAfter how long the preferred backend must answer first, at least zero
     * @return this builder, for chaining
     */
    public Builder returnAfter(Duration returnAfter) {
      this.returnAfter = returnAfter;
      return this;
    }

    /**
     * build validates the settings and creates an elector that has not started; no connection
     * is made and no thread starts until {@code start()}.
     *
     * @return the elector, not started
     * @throws IllegalArgumentException naming the field (or property) and the value
     */
    public FallbackElector build() {
      try {
        return buildChecked();
      } catch (IllegalArgumentException e) {
        throw properties == null ? e : properties.named(e);
      }
    }

    private FallbackElector buildChecked() {
      ElectorConfig neutral = buildConfig();
      List<Backend> order = checkedOrder();
      if (fallbackAfter == null || fallbackAfter.compareTo(neutral.leaseTtl()) < 0) {
        throw new IllegalArgumentException("fallbackAfter must be >= leaseTtl ("
            + Durations.human(neutral.leaseTtl())
            + ": a shorter outage is one a leader rides out), but was "
            + Durations.human(fallbackAfter));
      }
      if (returnAfter == null || returnAfter.isNegative()) {
        throw new IllegalArgumentException(
            "returnAfter must be >= 0, but was " + Durations.human(returnAfter));
      }
      // The composite registers the shutdown hook; its inner electors must not race it.
      ElectorConfig inner = ElectorConfig.builder().config(neutral).closeOnShutdown(false).build();
      List<BackendTier> tiers = new ArrayList<>();
      for (int i = 0; i < order.size(); i++) {
        Backend b = order.get(i);
        Supplier<LeaderElector> electors = factory(b, inner);
        electors.get(); // validates now; unstarted, it holds no thread and no connection
        Supplier<LeaderElector> probes = null;
        if (i == 0 && policy == FallbackPolicy.FALL_BACK_AND_RETURN) {
          ElectorConfig probe =
              ElectorConfig.builder()
                  .config(inner)
                  .electionKey(neutral.electionKey() + PROBE_SUFFIX)
                  .standbyLease(false)
                  .build();
          probes = factory(b, probe);
          probes.get();
        }
        tiers.add(new BackendTier(b, electors, probes));
      }
      String name = neutral.candidateId() + "@" + neutral.electionKey();
      return new FallbackRuntime(
          neutral, tiers, policy, fallbackAfter, returnAfter, new ThreadScheduler(), name);
    }

    /**
     * spreadingSession validates the neutral and etcd settings as {@link #build()} does and makes
     * an {@link EtcdSession} that spreads its elections (PROTOCOL.md §11.7) under {@code prefix},
     * with this member's {@code weight}; nothing runs until its {@code start()}. Sessions are
     * etcd's: the backends must be etcd alone. The elector's priority and preemption stay the
     * elector's (the session's elections are placed by spreading); its health check, if set, is
     * the session's too (an unhealthy session hands its elections to the healthy members).
     *
     * @param prefix the key prefix of the session's elections, ending with "/"; its member keys go
     *     under {@code prefix + "members/"}
     * @param weight this member's weight, from 1 to {@link EtcdSession.Builder#MAX_WEIGHT}: its
     *     share of the fleet's elections grows with it
     * @return the session, not started; the caller closes it
     * @throws IllegalArgumentException naming the field (or property) and the value
     */
    public EtcdSession spreadingSession(String prefix, int weight) {
      try {
        if (backends == null || !backends.equals(List.of(Backend.ETCD))) {
          throw new IllegalArgumentException(
              "backends must be etcd alone for a session (sessions are etcd's), but was "
                  + (backends == null ? null : names(backends)));
        }
        checkSettings(Backend.ETCD, etcd, "etcd(EtcdLeaderElector.builder()...) or leasehold.etcd.endpoints");
        // The elector's priority and preemption are its own: the session's elections keep no
        // queue to rank, and spreading places them instead. A health check is followed: an
        // unhealthy spreading session hands its elections to the healthy members.
        ElectorConfig c = ElectorConfig.builder().config(buildConfig()).electionKey(prefix).closeOnShutdown(false)
            .priority(0).preemptAfter(null).build();
        return EtcdSession.spreading(c, etcd.get(), weight);
      } catch (IllegalArgumentException e) {
        throw properties == null ? e : properties.named(e);
      }
    }

    private List<Backend> checkedOrder() {
      if (backends == null || backends.isEmpty()) {
        throw new IllegalArgumentException(
            "backends must name at least one of etcd, jdbc, local, but was " + backends);
      }
      Set<Backend> seen = EnumSet.noneOf(Backend.class);
      for (Backend b : backends) {
        if (b == null || !seen.add(b)) {
          throw new IllegalArgumentException(
              "backends must name each backend once, but was " + names(backends));
        }
      }
      if (policy == null) {
        throw new IllegalArgumentException("fallback must be set, but was null");
      }
      if (policy == FallbackPolicy.FAIL_CLOSED && backends.size() > 1) {
        throw new IllegalArgumentException("backends must name one backend under fallback "
            + "fail-closed, which never uses another (name a policy: fall-back or "
            + "fall-back-and-return), but was " + names(backends));
      }
      if (policy != FallbackPolicy.FAIL_CLOSED && backends.size() < 2) {
        throw new IllegalArgumentException("backends must name at least two backends under fallback "
            + policy.propertyName() + ", but was " + names(backends));
      }
      checkSettings(Backend.ETCD, etcd, "etcd(EtcdLeaderElector.builder()...) or leasehold.etcd.endpoints");
      checkSettings(Backend.JDBC, jdbc, "jdbc(JdbcLeaderElector.builder()...) or leasehold.jdbc.url");
      return List.copyOf(backends);
    }

    private void checkSettings(Backend b, Object settings, String how) {
      String n = b.propertyName();
      if (backends.contains(b) && settings == null) {
        throw new IllegalArgumentException("backends names " + n + ", so " + n
            + " settings must be given with " + how + ", but were not");
      }
      if (!backends.contains(b) && settings != null) {
        throw new IllegalArgumentException("backends does not name " + n + ", so " + n
            + " settings must not be given, but were (backends " + names(backends) + ")");
      }
    }

    private Supplier<LeaderElector> factory(Backend b, ElectorConfig c) {
      return switch (b) {
        case ETCD -> {
          EtcdSettings settings = etcd.get();
          yield () -> EtcdLeaderElector.of(c, settings);
        }
        case JDBC -> {
          JdbcSettings settings = jdbc.get();
          yield () -> JdbcLeaderElector.of(c, settings);
        }
        case LOCAL -> {
          LocalStore store = local != null ? local : sharedLocalStore();
          yield () -> LocalLeaderElector.of(c, store);
        }
      };
    }

    private static String names(List<Backend> bs) {
      return bs.stream().map(b -> b == null ? "null" : b.propertyName()).toList().toString();
    }
  }

  /**
   * Given is a backend's settings as handed to a builder: the value, or why it could not be
   * made, which {@code build()} reports after the checks that come before it. Immutable.
   */
  private record Given<T>(T value, IllegalArgumentException refused) {
    static <T> Given<T> of(Supplier<T> make) {
      try {
        return new Given<>(make.get(), null);
      } catch (IllegalArgumentException e) {
        return new Given<>(null, e);
      }
    }

    T get() {
      if (refused != null) {
        throw refused;
      }
      return value;
    }
  }
}
