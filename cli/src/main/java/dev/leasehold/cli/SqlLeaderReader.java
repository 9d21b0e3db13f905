package dev.leasehold.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * SqlLeaderReader reads the lease row (PROTOCOL.md, SQL backend; MariaDB/MySQL or PostgreSQL,
 * told by the URL) with one plain SELECT on a connection of its own; it never takes, renews or releases. A row whose holder is empty or
 * whose expiry has passed on the server's clock names no leader.
 *
 * <p>Thread-safe: every read holds the instance's lock.
 */
final class SqlLeaderReader implements LeaderReader {
  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,63}(\\.[A-Za-z_][A-Za-z0-9_$]{0,63})?");

  private final String url;
  private final Properties login = new Properties();
  private final String sql;
  private final String key;
  private Connection connection;

  private SqlLeaderReader(String url, String user, char[] password, String table, String key) {
    this.url = url;
    if (user != null) {
      login.setProperty("user", user);
      login.setProperty("password", new String(password));
    }
    this.key = key;
    if (url != null && url.startsWith("jdbc:postgresql:")) {
      // clock_timestamp(), not now(): the server's clock at the read, as the elector writes it.
      String quoted = '"' + table.replace(".", "\".\"") + '"';
      this.sql = "SELECT candidate, epoch, holder <> '' AND expires_at > clock_timestamp(),"
          + " (EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000000)::bigint, ttl_us FROM " + quoted
          + " WHERE name = ?";
    } else {
      String quoted = "`" + table.replace(".", "`.`") + "`";
      this.sql = "SELECT candidate, epoch, holder <> '' AND expires_at > UTC_TIMESTAMP(6),"
          + " TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at), ttl_us FROM " + quoted + " WHERE name = ?";
    }
  }

  /** open checks the table name; it connects on the first read. */
  static SqlLeaderReader open(StoreOptions o, String key) {
    if (!TABLE.matcher(o.jdbcTable).matches()) {
      throw new IllegalArgumentException("--jdbc-table must be a name like leasehold_lease or mydb.leasehold_lease,"
          + " but was \"" + o.jdbcTable + "\"");
    }
    return new SqlLeaderReader(o.jdbcUrl, o.jdbcUser, o.jdbcUser == null ? null : o.jdbcPassword(), o.jdbcTable, key);
  }

  @Override
  public synchronized Snapshot read(Duration timeout) {
    try {
      if (connection == null || connection.isClosed()) {
        DriverManager.setLoginTimeout((int) Math.max(1, timeout.toSeconds()));
        connection = DriverManager.getConnection(url, login);
        connection.setAutoCommit(true);
      }
      try (PreparedStatement st = connection.prepareStatement(sql)) {
        st.setQueryTimeout((int) Math.max(1, timeout.toSeconds()));
        st.setString(1, key);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next() || !rs.getBoolean(3)) {
            return Snapshot.NOBODY;
          }
          return new Snapshot(Optional.of(rs.getString(1)), rs.getLong(2), 0,
              Duration.ofNanos(rs.getLong(4) * 1000), Duration.ofNanos(rs.getLong(5) * 1000));
        }
      }
    } catch (SQLException e) {
      closeQuietly();
      if (refusal(e)) {
        throw new Leasehold.ConfigurationException(
            "the database at " + StoreOptions.hostPort(url) + " refused the read: " + e.getMessage(), e);
      }
      throw new Leasehold.StoreUnreachableException(
          "the database at " + StoreOptions.hostPort(url) + " did not answer: " + e.getMessage(), e);
    }
  }

  // Wrong credentials (MariaDB 1045, SQLState 28), a missing privilege (1044, 1142, 1143; 42501)
  // or table (1146, 42S02; 42P01): the server answered, and waiting will not change its answer.
  private static boolean refusal(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    int code = e.getErrorCode();
    return state.startsWith("28") || state.equals("42501") || state.equals("42S02") || state.equals("42P01")
        || code == 1045 || code == 1044 || code == 1142 || code == 1143 || code == 1146;
  }

  @Override
  public void onChange(Runnable wakeUp) {
    // No change feed on SQL: watch polls.
  }

  @Override
  public synchronized void close() {
    closeQuietly();
  }

  private void closeQuietly() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException ignored) {
      // Closing a broken connection: nothing left to release.
    }
    connection = null;
  }
}
