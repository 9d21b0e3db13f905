package dev.leasehold.jdbc;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * JdbcLeaderElector builds {@link LeaderElector}s that run the Leasehold protocol against
 * MariaDB (10.6 or later) or MySQL (8.0 or later): a lease row in an InnoDB table is the
 * truth, its {@code epoch} the fencing token; {@code GET_LOCK} on the holder's token is only
 * the followers' wake-up, with polling as the fallback (PROTOCOL.md, section "SQL backend").
 * The same events, {@link dev.leasehold.Leadership} and deadline rule as on etcd; guard writes
 * with {@link JdbcFencing#guard}.
 *
 * <p>Each elector opens its own term session, never from a pool, and runs every statement on
 * it from one worker thread of its own; the runtime's event loop and the event dispatcher never
 * block on JDBC. The user brings the driver (MariaDB Connector/J or MySQL Connector/J).
 *
 * <p>Not guaranteed: no overlap and token order across a failover of asynchronous (or
 * semi-synchronous) replication, which may lose the last commits (the guard still refuses the
 * lost term's writes); Galera (refused) and multi-primary group replication; proxies that
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

  /** builder starts configuring an elector. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builder configures a MariaDB/MySQL {@link LeaderElector}: the backend-neutral settings
   * (inherited from {@link ElectorConfig.Settings}; the election key is the row's name, the
   * lease TTL a whole number of milliseconds, at least 500 ms, and {@code pollInterval} under
   * 2 × TTL, so the default 1 s needs a TTL over 500 ms; {@code standbyLease} does not apply)
   * plus where the term session comes from, the table and the opt-ins. {@link #build()}
   * validates everything and names the field and the value of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private String jdbcUrl;
    private String user;
    private String password;
    private DataSource dataSource;
    private String table = LeaseTable.DEFAULT_NAME;
    private boolean createTable;
    private boolean allowRelaxedDurability;
    private Supplier<Scheduler> scheduler = ThreadScheduler::new;
    private RandomGenerator random;

    private Builder() {}

    /**
     * jdbcUrl opens the term session with {@code DriverManager} (with connect and socket
     * timeouts and automatic reconnection off), for example
     * {@code jdbc:mariadb://db:3306/app}; the URL may carry the driver's options (TLS). The
     * preferred way: a pool's connections never serve the term session.
     */
    public Builder jdbcUrl(String url, String user, String password) {
      this.jdbcUrl = url;
      this.user = user;
      this.password = password;
      return this;
    }

    /**
     * dataSource opens the term session with {@code dataSource.getConnection()}; it must open a
     * new server session each time (the driver's own DataSource, such as
     * {@code org.mariadb.jdbc.MariaDbDataSource}), never hand out pooled ones: a pool is
     * detected at the first session (it gives the same server session back after close) and
     * refused with STORE_UNAVAILABLE. Use it when the driver needs configuring beyond a URL.
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /**
     * table sets the lease table, {@code name} or {@code schema.name}; default
     * {@code leasehold_lease} in the connection's database. Many elections share one table.
     */
    public Builder table(String table) {
      this.table = table;
      return this;
    }

    /**
     * createTable lets the elector create a missing table with PROTOCOL.md's DDL (needs the
     * CREATE privilege); default false: a missing table is reported, with the DDL to run, as
     * STORE_UNAVAILABLE.
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * allowRelaxedDurability accepts a server with {@code innodb_flush_log_at_trx_commit <> 1},
     * whose crash may lose the last commits (a repeated epoch, a row living shorter than its
     * MASTER's deadline); default false: such a server is refused.
     */
    public Builder allowRelaxedDurability(boolean allow) {
      this.allowRelaxedDurability = allow;
      return this;
    }

    /** scheduler replaces the threads and clock the elector runs on; for tests. */
    Builder scheduler(Supplier<Scheduler> scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /** random replaces the SecureRandom that draws holder tokens and jitter; for tests. */
    Builder random(RandomGenerator random) {
      this.random = random;
      return this;
    }

    /**
     * build validates the settings and creates an elector that has not started; it makes no
     * connection and starts no thread until {@link LeaderElector#start()}.
     */
    public LeaderElector build() {
      ElectorConfig c = buildConfig(MIN_TTL, Duration.ofMillis(1), null);
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
      SessionSource source = source();
      LeaseTable leaseTable = LeaseTable.of(table);
      SqlConfig sql = SqlConfig.from(c, leaseTable.configured());
      TermSession.Settings settings =
          new TermSession.Settings(
              leaseTable,
              c.electionKey(),
              c.candidateId(),
              sql.ttlMicros(),
              (int) Math.min(Integer.MAX_VALUE, ceilSeconds(waitTimeout)),
              (int) Math.max(1, ceilSeconds(c.rpcTimeout())),
              new ServerCheck.Options(createTable, allowRelaxedDurability));
      String name = c.candidateId() + "@" + c.electionKey();
      SqlLeaseStore store = new SqlLeaseStore(source, settings, c.rpcTimeout().toNanos(), name);
      SqlMachine machine = new SqlMachine(sql, random != null ? random : new SecureRandom());
      return new ElectorRuntime(c, machine, store, scheduler.get(), name);
    }

    private SessionSource source() {
      if (jdbcUrl != null && dataSource != null) {
        throw new IllegalArgumentException(
            "dataSource must not be set together with jdbcUrl, but both were (jdbcUrl " + jdbcUrl + ")");
      }
      if (dataSource != null) {
        return SessionSource.fromDataSource(dataSource);
      }
      if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
        throw new IllegalArgumentException("jdbcUrl must be a JDBC URL such as jdbc:mariadb://host:3306/db"
            + " (or set dataSource), but was " + (jdbcUrl == null ? "null" : "\"" + jdbcUrl + "\""));
      }
      return SessionSource.fromUrl(jdbcUrl, user, password);
    }

    private static long ceilSeconds(Duration d) {
      return (d.toNanos() + 999_999_999L) / 1_000_000_000L;
    }
  }
}
