package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * SessionSource opens the physical connections term sessions run on: from DriverManager with
 * the user's JDBC URL (connect and socket timeouts set, automatic reconnection off), or from a
 * DataSource that must open a new server session per {@code getConnection()}. A term session
 * never comes from a pool (PROTOCOL.md, SQL section, "Sessions"): the first time, a DataSource
 * is tested by closing one connection and opening another, and refused when it hands the same
 * server session back, which is what a pool does.
 *
 * <p>Thread-safe enough for its one caller, the store's worker thread.
 */
abstract class SessionSource {
  /** connect opens a connection, giving up after about {@code timeoutMillis}. */
  abstract Connection connect(int timeoutMillis) throws SQLException;

  /** fromUrl opens connections with DriverManager. */
  static SessionSource fromUrl(String url, String user, String password) {
    return new FromUrl(url, user, password);
  }

  /** fromDataSource opens connections with {@code dataSource}, refusing a pool. */
  static SessionSource fromDataSource(DataSource dataSource) {
    return new FromDataSource(dataSource);
  }

  /** connectionId is the server's id of the session {@code c} runs on. */
  static long connectionId(Connection c, SqlDialect dialect) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(dialect.connectionIdQuery())) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static final class FromUrl extends SessionSource {
    private final String url;
    private final String user;
    private final String password;

    FromUrl(String url, String user, String password) {
      this.url = url;
      this.user = user;
      this.password = password;
    }

    @Override
    Connection connect(int timeoutMillis) throws SQLException {
      Properties p = new Properties();
      if (user != null) {
        p.setProperty("user", user);
      }
      if (password != null) {
        p.setProperty("password", password);
      }
      if (SqlDialect.ofUrl(url) == SqlDialect.POSTGRESQL) {
        // pgjdbc counts these in seconds. Server-side prepared statements stay off
        // (prepareThreshold=0), so that the session also works through a transaction pooler,
        // which does not carry them from one transaction to the next.
        String s = Integer.toString(Math.max(1, (timeoutMillis + 999) / 1_000));
        p.setProperty("connectTimeout", s);
        p.setProperty("loginTimeout", s);
        p.setProperty("socketTimeout", s);
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("prepareThreshold", "0");
        p.setProperty("ApplicationName", "leasehold");
      } else {
        String ms = Integer.toString(Math.max(1, timeoutMillis));
        // Both MariaDB Connector/J and MySQL Connector/J read these; the user's URL may add more.
        p.setProperty("connectTimeout", ms);
        p.setProperty("socketTimeout", ms);
        p.setProperty("autoReconnect", "false");
      }
      return DriverManager.getConnection(url, p);
    }

    @Override
    public String toString() {
      return url;
    }
  }

  private static final class FromDataSource extends SessionSource {
    private final DataSource dataSource;
    private volatile boolean checked;

    FromDataSource(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    @Override
    Connection connect(int timeoutMillis) throws SQLException {
      Connection c = dataSource.getConnection();
      if (checked) {
        return c;
      }
      long first;
      SqlDialect dialect;
      try {
        c.setNetworkTimeout(Runnable::run, Math.max(1, timeoutMillis));
        dialect = SqlDialect.of(c);
        first = connectionId(c, dialect);
      } finally {
        c.close();
      }
      Connection again = dataSource.getConnection();
      try {
        again.setNetworkTimeout(Runnable::run, Math.max(1, timeoutMillis));
        if (connectionId(again, dialect) == first) {
          throw new ServerCheck.Refused("dataSource is a connection pool: it handed out server session " + first
              + " again after close(). The term session must never come from a pool, which may close or"
              + " reuse it without a word; give the builder jdbcUrl(url, user, password), or the driver's own"
              + " non-pooling DataSource");
        }
      } catch (SQLException | RuntimeException e) {
        again.close();
        throw e;
      }
      checked = true;
      return again;
    }

    @Override
    public String toString() {
      return dataSource.getClass().getName();
    }
  }
}
