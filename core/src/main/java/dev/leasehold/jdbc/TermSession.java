package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.concurrent.Executor;

/**
 * TermSession is one term session (PROTOCOL.md, SQL section, "Sessions"): a dedicated
 * connection with autocommit on, {@code wait_timeout = ⌈2 × TTL⌉} s and
 * {@code innodb_lock_wait_timeout = ⌈rpcTimeout⌉} s, checked by {@link ServerCheck}, that runs
 * the protocol's statements one at a time. Each statement is bounded by the network timeout
 * set just before it, from its call's deadline, so a hung or paused server cannot hold the
 * worker past the call's timeout.
 *
 * <p>Not thread-safe: confined to the store's worker thread, except {@link #abort()}, which
 * may be called from any thread to end a GET_LOCK wait.
 */
final class TermSession {
  private static final Executor DIRECT = Runnable::run;

  private final long number;
  private final long connectionId;
  private final SqlDialect dialect;
  private final Connection connection;
  private final LeaseTable table;
  private final String name;
  private final String candidateId;
  private final long ttlMicros;
  private int networkTimeoutMillis = -1;
  private PreparedStatement read;
  private PreparedStatement insert;
  private PreparedStatement take;
  private PreparedStatement renew;
  private PreparedStatement release;
  private PreparedStatement getLock;
  private PreparedStatement releaseLock;

  private TermSession(long number, long connectionId, SqlDialect dialect, Connection connection,
      LeaseTable table, String name, String candidateId, long ttlMicros) {
    this.number = number;
    this.connectionId = connectionId;
    this.dialect = dialect;
    this.connection = connection;
    this.table = table;
    this.name = name;
    this.candidateId = candidateId;
    this.ttlMicros = ttlMicros;
  }

  /** Settings are what every session of one elector shares. */
  record Settings(LeaseTable table, String name, String candidateId, long ttlMicros,
      int waitTimeoutSeconds, int lockWaitTimeoutSeconds, ServerCheck.Options options) {}

  /** open connects, sets the session up and checks the server, all before {@code deadline}. */
  static TermSession open(SessionSource source, long number, Settings s, long deadline) throws SQLException {
    Connection c = source.connect(millisLeft(deadline));
    try {
      c.setNetworkTimeout(DIRECT, millisLeft(deadline));
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.execute("SET SESSION autocommit = 1, wait_timeout = " + s.waitTimeoutSeconds()
            + ", innodb_lock_wait_timeout = " + s.lockWaitTimeoutSeconds());
      }
      SqlDialect dialect = ServerCheck.check(c, s.table(), s.options());
      long id = SessionSource.connectionId(c);
      return new TermSession(number, id, dialect, c, s.table(), s.name(), s.candidateId(), s.ttlMicros());
    } catch (SQLException | RuntimeException e) {
      abort(c);
      throw e;
    }
  }

  /** number is the store's number for this session (1, 2, ...). */
  long number() {
    return number;
  }

  /** connectionId is the server's CONNECTION_ID() of this session. */
  long connectionId() {
    return connectionId;
  }

  /** dialect is the server's. */
  SqlDialect dialect() {
    return dialect;
  }

  /** read is S1; null when there is no row. */
  LeaseRow read(long deadline) throws SQLException {
    read = prepared(read, table.read(), deadline);
    read.setString(1, name);
    try (ResultSet rs = read.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      String holder = rs.getString(1);
      return new LeaseRow(holder == null || holder.isEmpty() ? null : new HolderToken(holder),
          rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getBoolean(6));
    }
  }

  /** insert is S2; false on a duplicate key (error 1062): the row exists, the take lost. */
  boolean insert(HolderToken holder, long epoch, long deadline) throws SQLException {
    insert = prepared(insert, table.insert(), deadline);
    insert.setString(1, name);
    insert.setString(2, holder.value());
    insert.setString(3, candidateId);
    insert.setLong(4, epoch);
    insert.setLong(5, ttlMicros);
    insert.setLong(6, ttlMicros);
    try {
      return insert.executeUpdate() == 1;
    } catch (SQLException e) {
      if (e.getErrorCode() == 1062) {
        return false;
      }
      throw e;
    }
  }

  /** take is S3 on the row read as {@code basis}. */
  boolean take(HolderToken holder, LeaseRow basis, long deadline) throws SQLException {
    take = prepared(take, table.take(), deadline);
    take.setString(1, holder.value());
    take.setString(2, candidateId);
    take.setLong(3, ttlMicros);
    take.setLong(4, ttlMicros);
    take.setString(5, name);
    take.setString(6, basis.released() ? "" : basis.holder().value());
    take.setLong(7, basis.version());
    return take.executeUpdate() == 1;
  }

  /** renew is S4. */
  boolean renew(HolderToken holder, long epoch, long deadline) throws SQLException {
    renew = prepared(renew, table.renew(), deadline);
    renew.setLong(1, ttlMicros);
    renew.setString(2, name);
    renew.setString(3, holder.value());
    renew.setLong(4, epoch);
    return renew.executeUpdate() == 1;
  }

  /** release is S5. */
  boolean release(HolderToken holder, long epoch, long deadline) throws SQLException {
    release = prepared(release, table.release(), deadline);
    release.setString(1, name);
    release.setString(2, holder.value());
    release.setLong(3, epoch);
    return release.executeUpdate() == 1;
  }

  /** getLock is S6 GET_LOCK(L(h), wait): true for 1, false for 0; NULL means the session failed. */
  boolean getLock(HolderToken holder, long waitNanos, long deadline) throws SQLException {
    getLock = prepared(getLock, "SELECT GET_LOCK(?, ?)", deadline);
    getLock.setString(1, holder.lockName());
    getLock.setObject(2, dialect.lockTimeout(waitNanos));
    try (ResultSet rs = getLock.executeQuery()) {
      rs.next();
      long v = rs.getLong(1);
      if (rs.wasNull()) {
        throw new SQLException("GET_LOCK('" + holder.lockName() + "') returned NULL: the session was killed or failed");
      }
      return v == 1;
    }
  }

  /** releaseLock is S6 RELEASE_LOCK(L(h)); what it returns does not matter. */
  void releaseLock(HolderToken holder, long deadline) throws SQLException {
    releaseLock = prepared(releaseLock, "SELECT RELEASE_LOCK(?)", deadline);
    releaseLock.setString(1, holder.lockName());
    try (ResultSet rs = releaseLock.executeQuery()) {
      rs.next();
    }
  }

  /** close ends the session politely (its named locks go with it); never throws. */
  void close() {
    try {
      connection.setNetworkTimeout(DIRECT, 1000);
      connection.close();
    } catch (SQLException | RuntimeException e) {
      abort(connection);
    }
  }

  /** abort ends the session at once, from any thread (a statement in progress fails); never throws. */
  void abort() {
    abort(connection);
  }

  private static void abort(Connection c) {
    try {
      c.abort(DIRECT);
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException | RuntimeException ignored) {
        // Nothing more to do: the server ends the session when it sees the socket gone.
      }
    }
  }

  private PreparedStatement prepared(PreparedStatement ps, String sql, long deadline) throws SQLException {
    int ms = millisLeft(deadline);
    if (ms != networkTimeoutMillis) {
      connection.setNetworkTimeout(DIRECT, ms);
      networkTimeoutMillis = ms;
    }
    return ps != null ? ps : connection.prepareStatement(sql);
  }

  private static int millisLeft(long deadline) throws SQLException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new SQLTimeoutException("timed out before the statement could be sent");
    }
    return (int) Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
  }

  @Override
  public String toString() {
    return "session " + number + " (connection id " + connectionId + ", " + dialect + ")";
  }
}
