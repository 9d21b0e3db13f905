package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * TermSession is one term session (PROTOCOL.md, SQL section, "Sessions"): a dedicated
 * connection with autocommit on, checked by {@link ServerCheck}, that runs the protocol's
 * statements one at a time. Each statement is bounded by the network timeout set just before
 * it, from its call's deadline, so a hung or paused server cannot hold the worker past the
 * call's timeout. Its settings: on the MySQL family {@code wait_timeout = ⌈2 × TTL⌉} s and
 * {@code innodb_lock_wait_timeout = ⌈rpcTimeout⌉} s; on PostgreSQL
 * {@code idle_session_timeout = 2 × TTL}, {@code lock_timeout = rpcTimeout} (the wake-up's
 * wait sets its own) and TCP keepalives, unless a transaction pooler serves the session
 * ({@link Wake#POLL}), where no session setting is made.
 *
 * <p>Not thread-safe: confined to the store's worker thread, except {@link #abort()}, which
 * may be called from any thread to end a wake-up wait.
 */
final class TermSession {
  private static final Executor DIRECT = Runnable::run;
  // PostgreSQL's lock_not_available: pg_advisory_lock gave up at lock_timeout.
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /**
   * Wake is how this session's wake-up lock {@code L(h)} works: {@code GET_LOCK} (MySQL
   * family), a session advisory lock keyed by the token's first 64 bits (PostgreSQL), or none
   * behind a transaction pooler, where a session lock would stay behind on a pooled server
   * connection: the follower's wait is then a plain timed wait, and the poll is its wake-up.
   */
  enum Wake { GET_LOCK, ADVISORY_LOCK, POLL }

  private final long number;
  private final long connectionId;
  private final SqlDialect dialect;
  private final Wake wake;
  private final Connection connection;
  private final LeaseSql sql;
  private final String name;
  private final String candidateId;
  private final long ttlMicros;
  private final long rpcTimeoutMillis;
  private final CountDownLatch aborted = new CountDownLatch(1);
  private int networkTimeoutMillis = -1;
  private long lockTimeoutMillis;
  private PreparedStatement read;
  private PreparedStatement insert;
  private PreparedStatement take;
  private PreparedStatement renew;
  private PreparedStatement release;
  private PreparedStatement tryLock;
  private PreparedStatement getLock;
  private PreparedStatement releaseLock;

  private TermSession(long number, long connectionId, SqlDialect dialect, Wake wake, Connection connection,
      Settings s) {
    this.number = number;
    this.connectionId = connectionId;
    this.dialect = dialect;
    this.wake = wake;
    this.connection = connection;
    this.sql = LeaseSql.of(dialect, s.table());
    this.name = s.name();
    this.candidateId = s.candidateId();
    this.ttlMicros = s.ttlMicros();
    this.rpcTimeoutMillis = s.rpcTimeoutMillis();
    this.lockTimeoutMillis = s.rpcTimeoutMillis();
  }

  /**
   * Settings are what every session of one elector shares.
   *
   * @param table the lease table
   * @param name the election name
   * @param candidateId written to the row's candidate column
   * @param ttlMicros the TTL
   * @param rpcTimeoutMillis the elector's RPC timeout
   * @param options the user's opt-ins
   */
  record Settings(LeaseTable table, String name, String candidateId, long ttlMicros, long rpcTimeoutMillis,
      ServerCheck.Options options) {}

  /**
   * open connects, checks the server and sets the session up, all before {@code deadline}.
   * {@code pooler} remembers, across the elector's sessions, whether a transaction pooler
   * serves them (PostgreSQL only; probed at the first session).
   */
  static TermSession open(SessionSource source, long number, Settings s, PoolerProbe pooler, long deadline)
      throws SQLException {
    Connection c = source.connect(millisLeft(deadline));
    try {
      c.setNetworkTimeout(DIRECT, millisLeft(deadline));
      c.setAutoCommit(true);
      SqlDialect dialect = ServerCheck.check(c, s.table(), s.options());
      Wake wake;
      try (Statement st = c.createStatement()) {
        if (dialect != SqlDialect.POSTGRESQL) {
          wake = Wake.GET_LOCK;
          st.execute("SET SESSION autocommit = 1, wait_timeout = " + ceilSeconds(2 * s.ttlMicros() / 1_000)
              + ", innodb_lock_wait_timeout = " + Math.max(1, ceilSeconds(s.rpcTimeoutMillis())));
        } else if (pooler.pooled(source, c, millisLeft(deadline))) {
          wake = Wake.POLL;
        } else {
          wake = Wake.ADVISORY_LOCK;
          long ttlMillis = s.ttlMicros() / 1_000;
          // The keepalives and tcp_user_timeout end a silent client's session (and free its
          // lock) within about a TTL, as wait_timeout does on MariaDB; idle_session_timeout
          // (PostgreSQL 14+) ends an idle one after 2 × TTL.
          st.execute("SET lock_timeout = " + s.rpcTimeoutMillis()
              + "; SET tcp_keepalives_idle = " + Math.max(1, ttlMillis / 2_000)
              + "; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3"
              + "; SET tcp_user_timeout = " + ttlMillis
              + (c.getMetaData().getDatabaseMajorVersion() >= 14 ? "; SET idle_session_timeout = " + 2 * ttlMillis : ""));
        }
      }
      long id = SessionSource.connectionId(c, dialect);
      return new TermSession(number, id, dialect, wake, c, s);
    } catch (SQLException | RuntimeException e) {
      abort(c);
      throw e;
    }
  }

  /** number is the store's number for this session (1, 2, ...). */
  long number() {
    return number;
  }

  /** connectionId is the server's id of this session ({@code CONNECTION_ID()}, {@code pg_backend_pid()}). */
  long connectionId() {
    return connectionId;
  }

  /** dialect is the server's. */
  SqlDialect dialect() {
    return dialect;
  }

  /** read is S1; null when there is no row. */
  LeaseRow read(long deadline) throws SQLException {
    read = prepared(read, sql.read(), deadline);
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

  /** insert is S2; false when the row exists (a duplicate key): the take lost. */
  boolean insert(HolderToken holder, long epoch, long deadline) throws SQLException {
    lockTimeout(rpcTimeoutMillis, deadline);
    insert = prepared(insert, sql.insert(), deadline);
    insert.setString(1, name);
    insert.setString(2, holder.value());
    insert.setString(3, candidateId);
    insert.setLong(4, epoch);
    insert.setLong(5, ttlMicros);
    insert.setLong(6, ttlMicros);
    try {
      return insert.executeUpdate() == 1;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** take is S3 on the row read as {@code basis}. */
  boolean take(HolderToken holder, LeaseRow basis, long deadline) throws SQLException {
    lockTimeout(rpcTimeoutMillis, deadline);
    take = prepared(take, sql.take(), deadline);
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
    lockTimeout(rpcTimeoutMillis, deadline);
    renew = prepared(renew, sql.renew(), deadline);
    renew.setLong(1, ttlMicros);
    renew.setString(2, name);
    renew.setString(3, holder.value());
    renew.setLong(4, epoch);
    return renew.executeUpdate() == 1;
  }

  /** release is S5. */
  boolean release(HolderToken holder, long epoch, long deadline) throws SQLException {
    lockTimeout(rpcTimeoutMillis, deadline);
    release = prepared(release, sql.release(), deadline);
    release.setString(1, name);
    release.setString(2, holder.value());
    release.setLong(3, epoch);
    return release.executeUpdate() == 1;
  }

  /**
   * getLock is S6 on {@code L(h)}: with no wait, a CANDIDATE's try on its fresh token; with a
   * wait, a FOLLOWER's wake-up. True when acquired, false when someone else holds it until the
   * wait ran out; a failed session throws.
   */
  boolean getLock(HolderToken holder, long waitNanos, long deadline) throws SQLException {
    switch (wake) {
      case GET_LOCK:
        return mysqlGetLock(holder, waitNanos, deadline);
      case ADVISORY_LOCK:
        return waitNanos <= 0 ? pgTryLock(holder, deadline) : pgLock(holder, waitNanos, deadline);
      default:
        return pollWait(waitNanos);
    }
  }

  private boolean mysqlGetLock(HolderToken holder, long waitNanos, long deadline) throws SQLException {
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

  private boolean pgTryLock(HolderToken holder, long deadline) throws SQLException {
    tryLock = prepared(tryLock, "SELECT pg_try_advisory_lock(?)", deadline);
    tryLock.setLong(1, holder.leaseId());
    try (ResultSet rs = tryLock.executeQuery()) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private boolean pgLock(HolderToken holder, long waitNanos, long deadline) throws SQLException {
    lockTimeout(Math.max(1, (waitNanos + 999_999) / 1_000_000), deadline);
    getLock = prepared(getLock, "SELECT pg_advisory_lock(?)", deadline);
    getLock.setLong(1, holder.leaseId());
    try (ResultSet rs = getLock.executeQuery()) {
      rs.next();
      return true;
    } catch (SQLException e) {
      if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        return false;
      }
      throw e;
    }
  }

  private boolean pollWait(long waitNanos) throws SQLException {
    try {
      if (aborted.await(Math.max(0, waitNanos), TimeUnit.NANOSECONDS)) {
        throw new SQLException("the wait was ended");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting", e);
    }
    // A wait that ran out is a timeout: the follower reads the row, which is the poll.
    return waitNanos <= 0;
  }

  /** releaseLock is S6's release of {@code L(h)}; what it returns does not matter. */
  void releaseLock(HolderToken holder, long deadline) throws SQLException {
    if (wake == Wake.POLL) {
      return;
    }
    boolean pg = wake == Wake.ADVISORY_LOCK;
    releaseLock = prepared(releaseLock, pg ? "SELECT pg_advisory_unlock(?)" : "SELECT RELEASE_LOCK(?)", deadline);
    if (pg) {
      releaseLock.setLong(1, holder.leaseId());
    } else {
      releaseLock.setString(1, holder.lockName());
    }
    try (ResultSet rs = releaseLock.executeQuery()) {
      rs.next();
    }
  }

  /** lockTimeout sets PostgreSQL's lock_timeout when it differs: the rows' writes and the wake-up's wait differ. */
  private void lockTimeout(long millis, long deadline) throws SQLException {
    if (wake != Wake.ADVISORY_LOCK || millis == lockTimeoutMillis) {
      return;
    }
    networkTimeout(deadline);
    try (Statement st = connection.createStatement()) {
      st.execute("SET lock_timeout = " + millis);
    }
    lockTimeoutMillis = millis;
  }

  /** close ends the session politely (its named locks go with it); never throws. */
  void close() {
    aborted.countDown();
    try {
      connection.setNetworkTimeout(DIRECT, 1000);
      connection.close();
    } catch (SQLException | RuntimeException e) {
      abort(connection);
    }
  }

  /** abort ends the session at once, from any thread (a statement or wait in progress fails); never throws. */
  void abort() {
    aborted.countDown();
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

  private PreparedStatement prepared(PreparedStatement ps, String text, long deadline) throws SQLException {
    networkTimeout(deadline);
    return ps != null ? ps : connection.prepareStatement(text);
  }

  private void networkTimeout(long deadline) throws SQLException {
    int ms = millisLeft(deadline);
    if (ms != networkTimeoutMillis) {
      connection.setNetworkTimeout(DIRECT, ms);
      networkTimeoutMillis = ms;
    }
  }

  private static long ceilSeconds(long millis) {
    return (millis + 999) / 1_000;
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
    return "session " + number + " (connection id " + connectionId + ", " + dialect
        + (wake == Wake.POLL ? ", behind a transaction pooler" : "") + ")";
  }
}
