package dev.leasehold.jdbc;

import javax.sql.DataSource;

/**
 * JdbcSettings is how a SQL elector reaches its database, validated: where the term session
 * comes from (a JDBC URL with user and password, or a non-pooling DataSource), the lease table
 * and the opt-ins. {@link JdbcLeaderElector#of} and {@code Backends.Builder.jdbc(...)} take it;
 * the backend-neutral settings are an {@link dev.leasehold.ElectorConfig}'s. The server's
 * dialect is told at the first session, from the server itself.
 *
 * <pre>{@code
 * JdbcSettings db = JdbcSettings.builder()
 *     .jdbcUrl("jdbc:mariadb://db:3306/app", "app", secret)
 *     .createTable(true)
 *     .build();
 * LeaderElector elector = JdbcLeaderElector.of(config, db);
 * }</pre>
 *
 * <p>Immutable and thread-safe (each elector made from it opens sessions of its own); the
 * builder is not thread-safe.
 */
public final class JdbcSettings {
  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final DataSource dataSource;
  private final LeaseTable table;
  private final ServerCheck.Options options;

  private JdbcSettings(Builder b) {
    if (b.jdbcUrl != null && b.dataSource != null) {
      throw new IllegalArgumentException(
          "dataSource must not be set together with jdbcUrl, but both were (jdbcUrl " + b.jdbcUrl + ")");
    }
    if (b.dataSource == null && (b.jdbcUrl == null || !b.jdbcUrl.startsWith("jdbc:"))) {
      throw new IllegalArgumentException("jdbcUrl must be a JDBC URL such as jdbc:postgresql://host:5432/db"
          + " (or set dataSource), but was " + (b.jdbcUrl == null ? "null" : "\"" + b.jdbcUrl + "\""));
    }
    this.jdbcUrl = b.jdbcUrl;
    this.user = b.user;
    this.password = b.password;
    this.dataSource = b.dataSource;
    this.table = LeaseTable.of(b.table);
    this.options = new ServerCheck.Options(b.createTable, b.allowRelaxedDurability);
  }

  /**
   * builder starts settings with the default table and no opt-in: give jdbcUrl or dataSource.
   *
   * @return a new builder with the default table and no connection source yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /** source opens this elector's term sessions: a new source per elector (a DataSource's pool check is its own). */
  SessionSource source() {
    return dataSource != null
        ? SessionSource.fromDataSource(dataSource)
        : SessionSource.fromUrl(jdbcUrl, user, password);
  }

  /** table is the lease table. */
  LeaseTable table() {
    return table;
  }

  /** options are the opt-ins the server check honours. */
  ServerCheck.Options options() {
    return options;
  }

  @Override
  public String toString() {
    return "JdbcSettings{" + (dataSource != null ? "dataSource=" + dataSource.getClass().getName()
        : "jdbcUrl=" + jdbcUrl + (user == null ? "" : ", user=" + user))
        + ", table=" + table.configured() + ", createTable=" + options.createTable()
        + ", allowRelaxedDurability=" + options.allowRelaxedDurability() + "}";
  }

  /**
   * Builder collects how to reach the database; {@link #build()} validates it and names the
   * field and the value of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder {
    private String jdbcUrl;
    private String user;
    private String password;
    private DataSource dataSource;
    private String table = LeaseTable.DEFAULT_NAME;
    private boolean createTable;
    private boolean allowRelaxedDurability;

    private Builder() {}

    /**
     * jdbcUrl opens the term session with {@code DriverManager} (with connect and socket
     * timeouts and automatic reconnection off), for example
     * {@code jdbc:postgresql://db:5432/app} or {@code jdbc:mariadb://db:3306/app}; the URL may
     * carry the driver's options (TLS: {@code sslmode=verify-full} on PostgreSQL). The preferred
     * way: a pool's connections never serve the term session. A URL that reaches PostgreSQL
     * through a transaction pooler (PgBouncer's {@code pool_mode = transaction}) works, without
     * wake-ups: followers poll (one INFO line says so at the first session).
     *
     * @param url the {@code jdbc:} URL, for example {@code jdbc:postgresql://db:5432/app}
     * @param user the database user, or null to leave it to the URL
     * @param password the user's password, or null to leave it to the URL
     * @return this builder, for chaining
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
     * {@code org.postgresql.ds.PGSimpleDataSource} or {@code org.mariadb.jdbc.MariaDbDataSource}),
     * never hand out pooled ones: a pool is
     * detected at the first session (it gives the same server session back after close) and
     * refused with STORE_UNAVAILABLE. Use it when the driver needs configuring beyond a URL.
     *
     * @param dataSource a DataSource that opens a new server session at each call
     * @return this builder, for chaining
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /**
     * table sets the lease table, {@code name} or {@code schema.name}; default
     * {@code leasehold_lease} in the connection's database. Many elections share one table.
     *
     * @param table the table, {@code name} or {@code schema.name}
     * @return this builder, for chaining
     */
    public Builder table(String table) {
      this.table = table;
      return this;
    }

    /**
     * createTable lets the elector create a missing table with PROTOCOL.md's DDL (needs the
     * CREATE privilege); default false: a missing table is reported, with the DDL to run, as
     * STORE_UNAVAILABLE.
     *
     * @param createTable true to create a missing table
     * @return this builder, for chaining
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * allowRelaxedDurability accepts a server with {@code innodb_flush_log_at_trx_commit <> 1},
     * whose crash may lose the last commits (a repeated epoch, a row living shorter than its
     * MASTER's deadline); default false: such a server is refused.
     *
     * @param allow true to accept such a server
     * @return this builder, for chaining
     */
    public Builder allowRelaxedDurability(boolean allow) {
      this.allowRelaxedDurability = allow;
      return this;
    }

    /**
     * build validates the settings: exactly one of jdbcUrl (a {@code jdbc:} URL) and dataSource,
     * and a table name that fits PROTOCOL.md's DDL.
     *
     * @return the validated settings
     * @throws IllegalArgumentException naming the field and its value
     */
    public JdbcSettings build() {
      return new JdbcSettings(this);
    }
  }
}
