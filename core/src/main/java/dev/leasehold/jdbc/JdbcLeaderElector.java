package dev.leasehold.jdbc;

import dev.leasehold.Durations;
import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.ThreadScheduler;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * JdbcLeaderElector builds {@link LeaderElector}s that run the Leasehold protocol against
 * PostgreSQL (12 or later; tested on 15), MariaDB (10.6 or later) or MySQL (8.0 or later;
 * unit-tested only): a lease row is the truth, its {@code epoch} the fencing token; a lock
 * on the holder's token ({@code GET_LOCK}, or PostgreSQL's session advisory lock) is only the
 * followers' wake-up, with polling as the fallback (PROTOCOL.md, section "SQL backend"). The
 * server's family is told at the first session, from the driver.
 * The same events, {@link dev.leasehold.Leadership} and deadline rule as on etcd; guard writes
 * with {@link JdbcFencing#guard}.
 *
 * <p>Each elector opens its own term session, never from a pool, and runs every statement on
 * it from one worker thread of its own; the runtime's event loop and the event dispatcher never
 * block on JDBC. The user brings the driver (the PostgreSQL JDBC driver, MariaDB Connector/J or
 * MySQL Connector/J). Behind a transaction pooler (PgBouncer in transaction mode) the elector
 * detects the pooling at its first session and polls instead of taking session locks.
 *
 * <p>Not guaranteed: no overlap and token order across a failover of asynchronous (or
 * semi-synchronous) replication, which may lose the last commits (the guard still refuses the
 * lost term's writes); a hot standby (refused); Galera (refused) and multi-primary group replication; proxies that
 * multiplex sessions or split reads, and drivers that reconnect silently; no overlap across a
 * pause longer than the margin or an operator's edit of the row.
 *
 * <p>Stateless and thread-safe; the electors it builds are thread-safe.
 */
public final class JdbcLeaderElector {
  private static final Pattern ELECTION_NAME = Pattern.compile("[A-Za-z0-9._/-]{1,128}");

  /**
   * MIN_TTL is the shortest lease TTL. The row's expiry has microseconds, but below 500 ms the
   * default margin (TTL/10) drops under 50 ms, about one young-GC pause or scheduling stall on a
   * busy host; the window for a retried renewal after a slow commit drops under 100 ms; the
   * MASTER commits a durable renewal every TTL/6 (over 12 per second); and the server's own
   * timers (wait_timeout, and GET_LOCK's timeout on MySQL) count whole seconds anyway.
   */
  static final Duration MIN_TTL = Duration.ofMillis(500);

  private JdbcLeaderElector() {}

  /**
   * builder starts configuring an elector.
   *
   * @return a new builder with the neutral defaults, the default table and no connection source yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * of creates an elector that has not started from the neutral settings and how to reach the
   * database; it makes no connection and starts no thread until {@link LeaderElector#start()}.
   *
   * @param config the backend-neutral settings, validated
   * @param settings how to reach the database and which table to use
   * @return the elector, not started
   * @throws IllegalArgumentException naming the field and the value when the config does not
   *     suit a lease row (see {@link Builder}), or an argument is null
   */
  public static LeaderElector of(ElectorConfig config, JdbcSettings settings) {
    if (config == null) {
      throw new IllegalArgumentException("config must be set, but was null");
    }
    ElectorConfig validated = checked(new Builder().config(config).sqlConfig());
    if (settings == null) {
      throw new IllegalArgumentException("settings must be set, but was null");
    }
    return create(validated, settings);
  }

  /**
   * renewInterval is how long after its last committed renewal's send time a MASTER renews: TTL/6.
   *
   * @param config the settings whose lease TTL sets the interval
   * @return TTL/6 of the configured lease TTL
   */
  public static Duration renewInterval(ElectorConfig config) {
    return Duration.ofNanos(SqlConfig.from(config, LeaseTable.DEFAULT_NAME).renewIntervalNanos());
  }

  /** checked applies the lease row's own rules to a config the neutral rules (and the TTL's) passed. */
  private static ElectorConfig checked(ElectorConfig c) {
    if (!ELECTION_NAME.matcher(c.electionKey()).matches()) {
      throw new IllegalArgumentException("electionKey must match " + ELECTION_NAME.pattern()
          + " (it is the lease row's name), but was \"" + c.electionKey() + "\"");
    }
    if (c.candidateId().codePointCount(0, c.candidateId().length()) > 255) {
      throw new IllegalArgumentException("candidateId must be at most 255 characters (the row's candidate"
          + " column), but was " + c.candidateId().length() + " long");
    }
    Duration waitTimeout = c.leaseTtl().multipliedBy(2);
    if (c.pollInterval().compareTo(waitTimeout) >= 0) {
      throw new IllegalArgumentException("pollInterval must be < 2 × leaseTtl (" + waitTimeout.toMillis()
          + "ms, the term session's wait_timeout), but was " + c.pollInterval().toMillis() + "ms");
    }
    return c;
  }

  /**
   * refusePlacement throws for the placement settings the lease row cannot carry yet: the row
   * has no queue of live candidates to rank or to hand over to (PROTOCOL.md §10), so a priority
   * or a preemption would be ignored, which is worse than refused.
   */
  private static void refusePlacement(ElectorConfig c) {
    if (c.priority() != 0) {
      throw new UnsupportedOperationException(
          "priority is not supported by the jdbc backend (its lease row keeps no queue of candidates), but was "
              + c.priority());
    }
    if (c.preemptAfter().isPresent()) {
      throw new UnsupportedOperationException(
          "preemptAfter is not supported by the jdbc backend (its lease row keeps no queue of candidates), but was "
              + Durations.human(c.preemptAfter().get()));
    }
  }

  private static LeaderElector create(ElectorConfig c, JdbcSettings settings) {
    refusePlacement(c);
    SqlConfig sql = SqlConfig.from(c, settings.table().configured());
    TermSession.Settings session = new TermSession.Settings(settings.table(), c.electionKey(), c.candidateId(),
        sql.ttlMicros(), c.rpcTimeout().toMillis(), settings.options());
    String name = c.candidateId() + "@" + c.electionKey();
    PoolerProbe pooler = new PoolerProbe(name, c.pollInterval().toMillis());
    SqlPort store = new SqlPort(settings.source(), session, pooler, c.rpcTimeout().toNanos(), name);
    SqlMachine machine = new SqlMachine(sql, new SecureRandom());
    return new ElectorRuntime(c, machine, store, new ThreadScheduler(), name);
  }

  /**
   * Builder configures a PostgreSQL or MariaDB/MySQL {@link LeaderElector}: the backend-neutral settings
   * (inherited from {@link ElectorConfig.Settings}; the election key is the row's name, the
   * lease TTL a whole number of milliseconds, at least 500 ms, and {@code pollInterval} under
   * 2 × TTL, so the default 1 s needs a TTL over 500 ms; {@code standbyLease} does not apply)
   * plus where the term session comes from, the table and the opt-ins ({@link JdbcSettings}).
   * {@link #build()} validates everything and names the field and the value of the first
   * problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private final JdbcSettings.Builder jdbc = JdbcSettings.builder();

    private Builder() {}

    /**
     * jdbcUrl opens the term session with {@code DriverManager}: {@link
     * JdbcSettings.Builder#jdbcUrl}.
     *
     * @param url the {@code jdbc:} URL, for example {@code jdbc:mariadb://db:3306/app}
     * @param user the database user, or null to leave it to the URL
     * @param password the user's password, or null to leave it to the URL
     * @return this builder, for chaining
     */
    public Builder jdbcUrl(String url, String user, String password) {
      jdbc.jdbcUrl(url, user, password);
      return this;
    }

    /**
     * dataSource opens the term session from a non-pooling DataSource: {@link
     * JdbcSettings.Builder#dataSource}.
     *
     * @param dataSource a DataSource that opens a new server session at each call
     * @return this builder, for chaining
     */
    public Builder dataSource(DataSource dataSource) {
      jdbc.dataSource(dataSource);
      return this;
    }

    /**
     * table sets the lease table: {@link JdbcSettings.Builder#table}.
     *
     * @param table the table, {@code name} or {@code schema.name}
     * @return this builder, for chaining
     */
    public Builder table(String table) {
      jdbc.table(table);
      return this;
    }

    /**
     * createTable lets the elector create a missing table: {@link
     * JdbcSettings.Builder#createTable}.
     *
     * @param createTable true to create a missing table
     * @return this builder, for chaining
     */
    public Builder createTable(boolean createTable) {
      jdbc.createTable(createTable);
      return this;
    }

    /**
     * allowRelaxedDurability accepts a server whose crash may lose the last commits: {@link
     * JdbcSettings.Builder#allowRelaxedDurability}.
     *
     * @param allow true to accept such a server
     * @return this builder, for chaining
     */
    public Builder allowRelaxedDurability(boolean allow) {
      jdbc.allowRelaxedDurability(allow);
      return this;
    }

    /**
     * settings validates how to reach the database, as set so far, into its value; the builder
     * stays usable, and later changes to it do not reach the value.
     *
     * @return the validated settings, independent of this builder
     * @throws IllegalArgumentException naming the field and its value
     */
    public JdbcSettings settings() {
      return jdbc.build();
    }

    /**
     * build validates the settings and creates an elector that has not started, as {@link
     * JdbcLeaderElector#of} does with the two values; it makes no connection and starts no
     * thread until {@link LeaderElector#start()}.
     *
     * @return the elector, not started
     * @throws IllegalArgumentException naming the field and its value
     */
    public LeaderElector build() {
      ElectorConfig c = checked(sqlConfig());
      return create(c, settings());
    }

    private ElectorConfig sqlConfig() {
      return buildConfig(MIN_TTL, Duration.ofMillis(1), null);
    }
  }
}
