package dev.leasehold.bench.contender;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * SessionLock is the scheduler design's lock: a named session lock tried without waiting every 2 s, which the
 * server frees when the session ends. The seed runs it on MySQL with {@code GET_LOCK(name, 0)};
 * {@link Dialect#POSTGRES} is the same design with {@code pg_try_advisory_lock}. Both locks are re-entrant for the
 * session that holds them (MariaDB's and MySQL's named locks return 1 again, a PostgreSQL advisory lock stacks
 * another hold), so the leader's own try says "got it" again. The session's idle timeout is the one Leasehold's
 * term session gets (⌈2 × TTL⌉ s: MariaDB's {@code wait_timeout}, PostgreSQL's {@code idle_session_timeout}), so
 * the server ends a silent session, and frees its lock, as early as it does for Leasehold (the servers' defaults
 * are 8 hours and never). Immutable.
 */
final class SessionLock implements PolledLock {
  /** PERIOD_MILLIS is the design's period: every instance tries the lock this often. */
  static final long PERIOD_MILLIS = 2000;

  /** Dialect is a server's lock statements and session setting. Immutable. */
  enum Dialect {
    /** MARIADB takes MariaDB's (and MySQL's) named lock; its driver counts timeouts in milliseconds. */
    MARIADB("SELECT GET_LOCK(?, 0)", "SELECT RELEASE_ALL_LOCKS()", "SET SESSION wait_timeout = %d", 1),
    /**
     * POSTGRES takes an advisory lock keyed by the name's 64-bit hash, as applications commonly do; pgjdbc counts
     * timeouts in seconds.
     */
    POSTGRES("SELECT pg_try_advisory_lock(hashtextextended(?, 0))::int", "SELECT pg_advisory_unlock_all()",
        "SET idle_session_timeout = '%ds'", 1000);

    private final String tryLock;
    private final String releaseAll;
    private final String idleTimeout;
    private final int timeoutUnitMillis;

    Dialect(String tryLock, String releaseAll, String idleTimeout, int timeoutUnitMillis) {
      this.tryLock = tryLock;
      this.releaseAll = releaseAll;
      this.idleTimeout = idleTimeout;
      this.timeoutUnitMillis = timeoutUnitMillis;
    }
  }

  private final Dialect dialect;
  private final String name;
  private final int idleTimeoutSeconds;

  SessionLock(Dialect dialect, String name, long ttlMillis) {
    this.dialect = dialect;
    this.name = name;
    this.idleTimeoutSeconds = (int) Math.max(1, (2 * ttlMillis + 999) / 1000);
  }

  @Override
  public long periodMillis() {
    return PERIOD_MILLIS;
  }

  @Override
  public int timeoutUnitMillis() {
    return dialect.timeoutUnitMillis;
  }

  @Override
  public void setUp(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(String.format(dialect.idleTimeout, idleTimeoutSeconds));
    }
  }

  @Override
  public boolean poll(Connection connection, boolean leading) throws SQLException {
    try (PreparedStatement st = connection.prepareStatement(dialect.tryLock)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        int v = rs.getInt(1);
        if (rs.wasNull()) {
          throw new SQLException(dialect.tryLock + " returned NULL");
        }
        return v == 1;
      }
    }
  }

  @Override
  public void release(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(dialect.releaseAll);
    }
  }
}
