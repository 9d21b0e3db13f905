package dev.leasehold;

import static dev.leasehold.Durations.human;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ElectorConfig holds the backend-neutral settings of an elector, validated as a whole when
 * built; each error names the field and the bad value.
 *
 * <p>Immutable and thread-safe; the builder is not thread-safe.
 */
public final class ElectorConfig {
  private final String electionKey;
  private final String candidateId;
  private final Duration leaseTtl;
  private final Duration safetyMargin;
  private final double maxDriftRate;
  private final Duration pollInterval;
  private final Duration rpcTimeout;
  private final Duration retryBackoffInitial;
  private final Duration retryBackoffMax;
  private final Duration resignHoldoff;
  private final boolean standbyLease;
  private final boolean closeOnShutdown;
  private final Duration workStallTimeout;
  private final Placement placement;
  private final HealthPolicy health;

  /** etcd's largest lease TTL (MaxLeaseTTL, 9,000,000,000 s). */
  private static final Duration MAX_LEASE_TTL = Duration.ofSeconds(9_000_000_000L);
  private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

  /**
   * ElectorConfig validates every field of {@code s} and the relations between them, and fills
   * in the defaults. The lease TTL is first checked against its store's rule: at least {@code
   * minTtl} and a whole number of {@code ttlUnit}s ({@code unitReason}, when not null, says why
   * in the error).
   */
  private ElectorConfig(Settings<?> s, Duration minTtl, Duration ttlUnit, String unitReason) {
    if (s.electionKey == null || s.electionKey.isBlank()) {
      throw new IllegalArgumentException(
          "electionKey must be a non-blank string, but was " + quote(s.electionKey));
    }
    if (s.candidateId != null && s.candidateId.isBlank()) {
      throw new IllegalArgumentException(
          "candidateId must be non-blank when set, but was " + quote(s.candidateId));
    }
    checkLeaseTtl(s.leaseTtl, minTtl, ttlUnit, unitReason);
    if (!(s.maxDriftRate >= 0 && s.maxDriftRate < 0.1)) {
      throw new IllegalArgumentException(
          "maxDriftRate must be in [0, 0.1), but was " + s.maxDriftRate);
    }
    Duration margin = s.safetyMargin != null ? s.safetyMargin : s.leaseTtl.dividedBy(10);
    if (margin.isNegative()) {
      throw new IllegalArgumentException("safetyMargin must be >= 0, but was " + human(margin));
    }
    requireNanos("safetyMargin", margin);
    // The deadline window must hold at least two renewals (one every TTL/3), or a single
    // slow round trip would cost leadership.
    long ttlNanos = s.leaseTtl.toNanos();
    long window = (long) (ttlNanos * (1 - s.maxDriftRate)) - margin.toNanos();
    long twoRenewals = 2 * (ttlNanos / 3);
    if (window <= twoRenewals) {
      Duration maxMargin =
          Duration.ofNanos(Math.max(0, (long) (ttlNanos * (1 - s.maxDriftRate)) - twoRenewals));
      throw new IllegalArgumentException(
          "safetyMargin leaves no time to renew: with leaseTtl " + human(s.leaseTtl)
              + " and maxDriftRate " + s.maxDriftRate + " it must be < " + human(maxMargin)
              + ", but was " + human(margin));
    }
    requirePositive("pollInterval", s.pollInterval);
    requireNanos("pollInterval", s.pollInterval);
    if (s.pollInterval.compareTo(Duration.ofMillis(10)) < 0) {
      throw new IllegalArgumentException(
          "pollInterval must be >= 10ms, but was " + human(s.pollInterval));
    }
    Duration rpc = s.rpcTimeout != null ? s.rpcTimeout : defaultRpcTimeout(s.leaseTtl);
    requirePositive("rpcTimeout", rpc);
    if (rpc.compareTo(s.leaseTtl.dividedBy(3)) >= 0) {
      throw new IllegalArgumentException(
          "rpcTimeout must be < leaseTtl/3 (" + human(s.leaseTtl.dividedBy(3)) + "), but was "
              + human(rpc));
    }
    requirePositive("retryBackoffInitial", s.retryBackoffInitial);
    requirePositive("retryBackoffMax", s.retryBackoffMax);
    requireNanos("retryBackoffMax", s.retryBackoffMax);
    if (s.retryBackoffMax.compareTo(s.retryBackoffInitial) < 0) {
      throw new IllegalArgumentException(
          "retryBackoffMax must be >= retryBackoffInitial (" + human(s.retryBackoffInitial)
              + "), but was " + human(s.retryBackoffMax));
    }
    Duration holdoff = s.resignHoldoff != null ? s.resignHoldoff : s.leaseTtl;
    if (holdoff.isNegative()) {
      throw new IllegalArgumentException("resignHoldoff must be >= 0, but was " + human(holdoff));
    }
    requireNanos("resignHoldoff", holdoff);
    if (s.workStallTimeout != null) {
      requirePositive("workStallTimeout", s.workStallTimeout);
      requireNanos("workStallTimeout", s.workStallTimeout);
      if (s.workStallTimeout.compareTo(Duration.ofMillis(10)) < 0) {
        throw new IllegalArgumentException(
            "workStallTimeout must be >= 10ms, but was " + human(s.workStallTimeout));
      }
    }
    this.electionKey = s.electionKey;
    this.candidateId = s.candidateId != null ? s.candidateId : defaultCandidateId();
    this.leaseTtl = s.leaseTtl;
    this.safetyMargin = margin;
    this.maxDriftRate = s.maxDriftRate;
    this.pollInterval = s.pollInterval;
    this.rpcTimeout = rpc;
    this.retryBackoffInitial = s.retryBackoffInitial;
    this.retryBackoffMax = s.retryBackoffMax;
    this.resignHoldoff = holdoff;
    this.standbyLease = s.standbyLease;
    this.closeOnShutdown = s.closeOnShutdown;
    this.workStallTimeout = s.workStallTimeout;
    this.placement = Placement.of(s.priority, s.preemptAfter, s.standbyLease);
    this.health = HealthPolicy.of(s.healthCheck, s.healthCheckInterval, s.healthCheckThreshold);
  }

  /**
   * builder starts a config with every default set except the election key.
   *
   * @return a new builder; only {@code electionKey} must be set before {@link Builder#build()}
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * electionKey is the key whose holder is the leader.
   *
   * @return the key, never blank
   */
  public String electionKey() {
    return electionKey;
  }

  /**
   * candidateId labels this instance in the key's value and in events.
   *
   * @return the configured id, or when none was set the generated {@code host-pid-random} one
   */
  public String candidateId() {
    return candidateId;
  }

  /**
   * leaseTtl is the requested lease TTL; the store may grant a longer one, which is used.
   *
   * @return the TTL as configured, a whole number of the store's unit
   */
  public Duration leaseTtl() {
    return leaseTtl;
  }

  /**
   * safetyMargin is subtracted from every local deadline.
   *
   * @return the margin, at least zero; TTL/10 unless set
   */
  public Duration safetyMargin() {
    return safetyMargin;
  }

  /**
   * maxDriftRate bounds the local clock's rate error relative to the store's clock.
   *
   * @return the fraction in [0, 0.1); 0.01 means the local clock may run 1% fast or slow
   */
  public double maxDriftRate() {
    return maxDriftRate;
  }

  /**
   * pollInterval is how often a follower reads the key in case its watch went silent.
   *
   * @return the poll interval, at least 10 ms
   */
  public Duration pollInterval() {
    return pollInterval;
  }

  /**
   * rpcTimeout bounds every call to the store.
   *
   * @return the timeout, positive and under leaseTtl/3; min(1 s, TTL/4) unless set
   */
  public Duration rpcTimeout() {
    return rpcTimeout;
  }

  /**
   * retryBackoffInitial is the first delay after a failed call; it doubles up to the max.
   *
   * @return the first retry delay, positive
   */
  public Duration retryBackoffInitial() {
    return retryBackoffInitial;
  }

  /**
   * retryBackoffMax caps the retry delay.
   *
   * @return the largest retry delay, at least {@link #retryBackoffInitial()}
   */
  public Duration retryBackoffMax() {
    return retryBackoffMax;
  }

  /**
   * resignHoldoff is how long an instance that resigned stays out of the next election.
   *
   * @return the hold-off, at least zero; the lease TTL unless set
   */
  public Duration resignHoldoff() {
    return resignHoldoff;
  }

  /**
   * standbyLease tells whether followers keep a lease ready for a faster takeover.
   *
   * @return true when followers hold a standby lease (the default)
   */
  public boolean standbyLease() {
    return standbyLease;
  }

  /**
   * closeOnShutdown tells whether a JVM shutdown hook closes the elector (so it hands over at once).
   *
   * @return true when a shutdown hook closes the elector; false by default
   */
  public boolean closeOnShutdown() {
    return closeOnShutdown;
  }

  /**
   * workStallTimeout is how long a MASTER waits for a {@link Leadership#heartbeat()} from its
   * leader-only work before it resigns with {@code WORK_STALLED}; empty (the default) when the
   * watchdog is off.
   *
   * @return the stall timeout, at least 10 ms, or empty when the watchdog is off
   */
  public Optional<Duration> workStallTimeout() {
    return Optional.ofNullable(workStallTimeout);
  }

  /**
   * priority is this candidate's rank in the queue (PROTOCOL.md §4.5): when the key is free the
   * live candidate of the highest priority takes it, and a handover picks the highest; default 0.
   *
   * @return the priority, higher first
   */
  public int priority() {
    return placement.priority();
  }

  /**
   * preemptAfter is how long a MASTER sees a live candidate of a higher priority in its queue
   * before it hands the key over to it ({@code PREEMPTED}); empty (the default) when it never
   * does.
   *
   * @return the delay, or empty when this candidate never preempts
   */
  public Optional<Duration> preemptAfter() {
    return Optional.ofNullable(placement.preemptAfter());
  }

  /**
   * healthCheck is the user's probe of whether this instance is fit to lead, polled every {@link
   * #healthCheckInterval()} off the event loop; empty (the default) when none is set. While it
   * holds the instance unhealthy, the candidate stays out of the queue and does not campaign, and
   * a MASTER hands its term to the next healthy candidate (PROTOCOL.md §4.5).
   *
   * @return the check, or empty
   */
  public Optional<HealthCheck> healthCheck() {
    return Optional.ofNullable(health.check());
  }

  /**
   * healthCheckInterval is how often the health check is polled; default 1 s.
   *
   * @return the interval, at least 10 ms
   */
  public Duration healthCheckInterval() {
    return health.interval();
  }

  /**
   * healthCheckThreshold is how many answers of the health check in a row, opposite to the
   * elector's current view, change it (both ways); default 3.
   *
   * @return the threshold, at least 1
   */
  public int healthCheckThreshold() {
    return health.threshold();
  }

  @Override
  public String toString() {
    return "ElectorConfig{electionKey=" + electionKey + ", candidateId=" + candidateId
        + ", leaseTtl=" + human(leaseTtl) + ", safetyMargin=" + human(safetyMargin)
        + ", maxDriftRate=" + maxDriftRate + ", pollInterval=" + human(pollInterval)
        + ", rpcTimeout=" + human(rpcTimeout) + ", retryBackoff=" + human(retryBackoffInitial)
        + ".." + human(retryBackoffMax) + ", resignHoldoff=" + human(resignHoldoff)
        + ", standbyLease=" + standbyLease + ", closeOnShutdown=" + closeOnShutdown
        + (workStallTimeout != null ? ", workStallTimeout=" + human(workStallTimeout) : "")
        + placement + health + "}";
  }

  private static Duration defaultRpcTimeout(Duration ttl) {
    Duration quarter = ttl.dividedBy(4);
    return quarter.compareTo(Duration.ofSeconds(1)) < 0 ? quarter : Duration.ofSeconds(1);
  }

  private static void checkLeaseTtl(Duration ttl, Duration minTtl, Duration ttlUnit, String unitReason) {
    requirePositive("leaseTtl", ttl);
    if (ttl.compareTo(minTtl) < 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be >= " + human(minTtl) + ", but was " + human(ttl));
    }
    if (ttl.compareTo(MAX_LEASE_TTL) > 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be <= " + MAX_LEASE_TTL.getSeconds() + "s (etcd's largest TTL), but was "
              + human(ttl));
    }
    if (ttl.toNanos() % ttlUnit.toNanos() != 0) {
      throw new IllegalArgumentException(
          "leaseTtl must be a whole number of " + unitName(ttlUnit)
              + (unitReason == null ? "" : " (" + unitReason + ")") + ", but was "
              + Durations.exact(ttl));
    }
  }

  private static void requirePositive(String field, Duration d) {
    if (d == null) {
      throw new IllegalArgumentException(field + " must be set, but was null");
    }
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + human(d));
    }
  }

  /** requireNanos rejects durations the monotonic clock's nanoseconds cannot hold. */
  static void requireNanos(String field, Duration d) {
    if (d.compareTo(MAX_NANOS) > 0) {
      throw new IllegalArgumentException(
          field + " must be <= " + MAX_NANOS.toDays() + " days, but was " + human(d));
    }
  }

  private static String unitName(Duration unit) {
    if (unit.equals(Duration.ofSeconds(1))) {
      return "seconds";
    }
    return unit.equals(Duration.ofMillis(1)) ? "milliseconds" : human(unit) + " steps";
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }

  private static String defaultCandidateId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    long pid = ProcessHandle.current().pid();
    String nonce = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    return host + "-" + pid + "-" + nonce;
  }

  /**
   * Builder collects settings; {@link #build()} validates them together.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends Settings<Builder> {
    private Builder() {}

    /**
     * build validates every field and the relations between them.
     *
     * @return the validated, immutable config
     * @throws IllegalArgumentException when a field or a relation between fields is invalid; the
     *     message names the field and its value
     */
    public ElectorConfig build() {
      return buildConfig();
    }
  }

  /**
   * Settings is where the backend-neutral setters are written once, for {@link Builder} and for
   * every backend's builder (which adds its own settings); {@code B} is the concrete builder, so
   * a chain of setters keeps its type. It only collects what is set: {@link #buildConfig()}
   * validates it into an immutable {@link ElectorConfig}, the value every elector is made from.
   *
   * <p>Not thread-safe.
   *
   * @param <B> the concrete builder type
   */
  public abstract static class Settings<B extends Settings<B>> {
    private String electionKey;
    private String candidateId;
    private Duration leaseTtl = Duration.ofSeconds(5);
    private Duration safetyMargin;
    private double maxDriftRate = 0.01;
    private Duration pollInterval = Duration.ofSeconds(1);
    private Duration rpcTimeout;
    private Duration retryBackoffInitial = Duration.ofMillis(100);
    private Duration retryBackoffMax = Duration.ofSeconds(1);
    private Duration resignHoldoff;
    private boolean standbyLease = true;
    private boolean closeOnShutdown;
    private Duration workStallTimeout;
    private int priority;
    private Duration preemptAfter;
    private HealthCheck healthCheck;
    private Duration healthCheckInterval = HealthPolicy.DEFAULT_INTERVAL;
    private int healthCheckThreshold = HealthPolicy.DEFAULT_THRESHOLD;

    /** Settings starts with every default set except the election key. */
    protected Settings() {}

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /**
     * config copies every setting of a validated config, for building from one object.
     *
     * @param c a validated config; every field is copied, the filled-in defaults included
     * @return this builder, for chaining
     */
    public B config(ElectorConfig c) {
      electionKey = c.electionKey;
      candidateId = c.candidateId;
      leaseTtl = c.leaseTtl;
      safetyMargin = c.safetyMargin;
      maxDriftRate = c.maxDriftRate;
      pollInterval = c.pollInterval;
      rpcTimeout = c.rpcTimeout;
      retryBackoffInitial = c.retryBackoffInitial;
      retryBackoffMax = c.retryBackoffMax;
      resignHoldoff = c.resignHoldoff;
      standbyLease = c.standbyLease;
      closeOnShutdown = c.closeOnShutdown;
      workStallTimeout = c.workStallTimeout;
      priority = c.placement.priority();
      preemptAfter = c.placement.preemptAfter();
      healthCheck = c.health.check();
      healthCheckInterval = c.health.interval();
      healthCheckThreshold = c.health.threshold();
      return self();
    }

    /**
     * electionKey sets the key to hold (required, non-blank).
     *
     * @param electionKey the key, for example {@code /services/billing/leader}; null or blank fails
     *     at build
     * @return this builder, for chaining
     */
    public B electionKey(String electionKey) {
      this.electionKey = electionKey;
      return self();
    }

    /**
     * candidateId sets this instance's label; default host-pid-random.
     *
     * @param candidateId the label, non-blank, or null for the default
     * @return this builder, for chaining
     */
    public B candidateId(String candidateId) {
      this.candidateId = candidateId;
      return self();
    }

    /**
     * leaseTtl sets the lease TTL in its store's unit; default 5 s. etcd and the local store
     * take whole seconds, at least 1 s; MariaDB/MySQL whole milliseconds, at least 500 ms.
     * Longer TTLs ride out longer store outages but make crash failover slower.
     *
     * @param leaseTtl the requested TTL; checked at build against the store's minimum and unit
     * @return this builder, for chaining
     */
    public B leaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
      return self();
    }

    /**
     * safetyMargin sets how long before the computed lease expiry the leader steps down;
     * default TTL/10. It must cover the delay between the deadline and the application
     * seeing that leadership ended.
     *
     * @param safetyMargin the margin, at least zero, or null for TTL/10
     * @return this builder, for chaining
     */
    public B safetyMargin(Duration safetyMargin) {
      this.safetyMargin = safetyMargin;
      return self();
    }

    /**
     * maxDriftRate sets the assumed bound on the local clock's rate error; default 0.01.
     *
     * @param maxDriftRate the rate error as a fraction, in [0, 0.1)
     * @return this builder, for chaining
     */
    public B maxDriftRate(double maxDriftRate) {
      this.maxDriftRate = maxDriftRate;
      return self();
    }

    /**
     * pollInterval sets how often followers read the key besides watching it; default 1 s.
     * Shorter detects a silent watch sooner at the cost of one linearizable read per follower
     * per interval (reads are not raft proposals).
     *
     * @param pollInterval the interval, at least 10 ms
     * @return this builder, for chaining
     */
    public B pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return self();
    }

    /**
     * rpcTimeout bounds each call to the store; default min(1 s, TTL/4). It must stay under
     * TTL/3, so that a renewal that hangs for the whole timeout still leaves time to retry
     * before the deadline.
     *
     * @param rpcTimeout the timeout, positive and under leaseTtl/3, or null for min(1 s, TTL/4)
     * @return this builder, for chaining
     */
    public B rpcTimeout(Duration rpcTimeout) {
      this.rpcTimeout = rpcTimeout;
      return self();
    }

    /**
     * retryBackoff sets the first and the largest delay between retries; default 100 ms..1 s.
     *
     * @param initial the delay after the first failed call, positive
     * @param max the cap the doubling delay stops at, at least {@code initial}
     * @return this builder, for chaining
     */
    public B retryBackoff(Duration initial, Duration max) {
      this.retryBackoffInitial = initial;
      this.retryBackoffMax = max;
      return self();
    }

    /**
     * resignHoldoff sets how long a resigned instance sits out; default the lease TTL.
     *
     * @param resignHoldoff how long to sit out, at least zero (zero re-enters at once), or null for
     *     the lease TTL
     * @return this builder, for chaining
     */
    public B resignHoldoff(Duration resignHoldoff) {
      this.resignHoldoff = resignHoldoff;
      return self();
    }

    /**
     * standbyLease makes each follower keep a lease of its own alive (renewed and confirmed
     * like a leader's, every 3·TTL/5 at the default margin), so that taking over costs one raft
     * proposal (the compare-and-swap) instead of two (grant, then compare-and-swap), and the
     * follower joins the queue a graceful handover picks its successor from; default true. The
     * cost is one keep-alive and one linearizable read per follower per renewal, neither a raft
     * proposal, and they are also its poll; turn it off for very many followers.
     *
     * @param standbyLease false to let followers hold no lease of their own
     * @return this builder, for chaining
     */
    public B standbyLease(boolean standbyLease) {
      this.standbyLease = standbyLease;
      return self();
    }

    /**
     * closeOnShutdown registers, at start(), a JVM shutdown hook that closes the elector: on
     * SIGTERM a leader then releases its lease and another instance takes over in
     * milliseconds instead of after a TTL; default false. The hook is removed by close().
     *
     * @param closeOnShutdown true to register the shutdown hook
     * @return this builder, for chaining
     */
    public B closeOnShutdown(boolean closeOnShutdown) {
      this.closeOnShutdown = closeOnShutdown;
      return self();
    }

    /**
     * workStallTimeout turns on the leader-work watchdog: while MASTER, if the leader's work
     * calls {@link Leadership#heartbeat()} less often than this (the first time counting from
     * election), the elector resigns with {@code WORK_STALLED} and sits out the resign
     * hold-off, so a healthy instance takes over from one whose work hung. At least 10 ms;
     * default off (null). Pick it well above the work's longest honest pause between
     * heartbeats: a false alarm costs a handover.
     *
     * @param workStallTimeout the longest gap allowed between heartbeats, at least 10 ms, or null
     *     to turn the watchdog off
     * @return this builder, for chaining
     */
    public B workStallTimeout(Duration workStallTimeout) {
      this.workStallTimeout = workStallTimeout;
      return self();
    }

    /**
     * priority sets this candidate's rank in the election's queue: when the key is free, the
     * live candidate of the highest priority campaigns first (ties: the lower lease id), and a
     * handover ({@code resign()}) goes to the highest (ties: the longest queued); default 0. It
     * needs the queue, so {@code standbyLease(true)}; etcd and the local store only (the SQL
     * backend refuses it). Any int; the queue's keys spell it (PROTOCOL.md §4.5).
     *
     * @param priority higher leads first
     * @return this builder
     */
    public B priority(int priority) {
      this.priority = priority;
      return self();
    }

    /**
     * preemptAfter lets a MASTER hand the key over, in the fenced handover transaction of
     * {@code resign()}, to a live candidate of a higher priority once its queue has shown one
     * for this long without a break (cause {@code PREEMPTED}); null (the default) never does.
     * The delay keeps a rolling restart from moving leadership at every step: pick it longer
     * than a restart of the preferred instance takes to settle. At least 0; needs {@code
     * standbyLease(true)}.
     *
     * @param preemptAfter how long a higher-priority candidate must wait, or null for never
     * @return this builder
     */
    public B preemptAfter(Duration preemptAfter) {
      this.preemptAfter = preemptAfter;
      return self();
    }

    /**
     * healthCheck sets the user's probe of whether this instance is fit to lead (a database
     * pool, a disk, Spring Boot's readiness); null (the default) sets none. It is polled every
     * {@link #healthCheckInterval} on a thread of its own, never the event loop; after {@link
     * #healthCheckThreshold} answers in a row that differ from its view, the elector changes its
     * mind: an unhealthy candidate leaves the queue and does not campaign, an unhealthy MASTER
     * hands its term to the next healthy candidate in its queue (cause {@code UNHEALTHY}) or,
     * with none, keeps it and says so in {@code health().unhealthy()}. etcd and the local store
     * (the handover needs the queue); the SQL backend refuses it.
     *
     * @param healthCheck the probe, or null for none
     * @return this builder
     */
    public B healthCheck(HealthCheck healthCheck) {
      this.healthCheck = healthCheck;
      return self();
    }

    /**
     * healthCheckInterval sets how often the health check is polled; default 1 s, at least 10 ms.
     *
     * @param healthCheckInterval the interval
     * @return this builder
     */
    public B healthCheckInterval(Duration healthCheckInterval) {
      this.healthCheckInterval = healthCheckInterval;
      return self();
    }

    /**
     * healthCheckThreshold sets how many answers in a row, opposite to the elector's current
     * view, change it, both ways; default 3, at least 1. With the default interval a leader
     * yields about 3 s after its check starts failing, and a flap shorter than that moves
     * nothing.
     *
     * @param healthCheckThreshold the number of answers in a row
     * @return this builder
     */
    public B healthCheckThreshold(int healthCheckThreshold) {
      this.healthCheckThreshold = healthCheckThreshold;
      return self();
    }

    /**
     * buildConfig validates every field and the relations between them, with the neutral
     * rule for the lease TTL (a whole number of milliseconds); a backend's builder calls
     * {@link #buildConfig(Duration, Duration, String)} with its store's rule instead.
     *
     * @return the validated, immutable config
     * @throws IllegalArgumentException when a field or a relation between fields is invalid; the
     *     message names the field and its value
     */
    protected final ElectorConfig buildConfig() {
      return buildConfig(Duration.ofMillis(1), Duration.ofMillis(1), null);
    }

    /**
     * buildConfig validates like {@link #buildConfig()}, the lease TTL by its store's rule:
     * at least {@code minTtl} and a whole number of {@code ttlUnit}s; {@code unitReason}, when
     * not null, tells in the error why the store needs that unit.
     *
     * @param minTtl the store's shortest lease TTL
     * @param ttlUnit the store's TTL granularity, for example one second for etcd
     * @param unitReason why the store needs {@code ttlUnit}, shown in the error; null for none
     * @return the validated, immutable config
     * @throws IllegalArgumentException when a field or a relation between fields is invalid; the
     *     message names the field and its value
     */
    protected final ElectorConfig buildConfig(Duration minTtl, Duration ttlUnit, String unitReason) {
      return new ElectorConfig(this, minTtl, ttlUnit, unitReason);
    }
  }

}
