package dev.leasehold.bench.contender;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * GetLockContender is the scheduler design's MySQL elector, written here from its description:
 * every 2 s each instance runs {@code SELECT GET_LOCK(name, 0)} on a connection it keeps open;
 * 1 means it leads (MariaDB's and MySQL's named locks are re-entrant, so the leader's own call
 * returns 1 again), 0 means someone else does; an error or NULL ends the connection, and a
 * leader then stops leading. There is no deadline and no fencing token: a leader leads until a
 * call tells it otherwise.
 *
 * <p>Choices the description leaves open, made in the design's favour and stated in the report:
 * the connection has a 5 s socket timeout (HikariCP's default validation timeout; the driver's
 * default is none, which would leave a partitioned leader hanging forever); the session's
 * {@code wait_timeout} is the one Leasehold's term session gets (⌈2 × TTL⌉ s), so the server
 * ends a silent client's session, and releases its lock, as early as it does for Leasehold
 * (the server default is 8 hours); {@code resign()} releases the lock and sits out one round,
 * as Leasehold's resign hold-off does, so another instance takes over.
 *
 * <p>All state is confined to one single-threaded executor.
 */
final class GetLockContender implements Contender {
  /** RETRY_MILLIS is the design's period: every instance calls GET_LOCK this often. */
  static final long RETRY_MILLIS = 2000;
  /** SOCKET_TIMEOUT_MILLIS bounds each call; see the class comment. */
  static final int SOCKET_TIMEOUT_MILLIS = 5000;

  private final String url;
  private final String user;
  private final String password;
  private final String lockName;
  private final int waitTimeoutSeconds;
  private final Sink sink;
  private final ScheduledExecutorService loop;

  // Confined to loop.
  private Connection connection;
  private boolean leading;
  private boolean sitOut;
  private boolean closed;

  GetLockContender(String url, String user, String password, String lockName, long ttlMillis, Sink sink) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.lockName = lockName;
    this.waitTimeoutSeconds = (int) Math.max(1, (2 * ttlMillis + 999) / 1000);
    this.sink = sink;
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "getlock-contender-" + lockName);
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void start() {
    loop.scheduleWithFixedDelay(this::round, 0, RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void round() {
    if (closed) {
      return;
    }
    if (sitOut) {
      sitOut = false;
      return;
    }
    try {
      if (connection == null) {
        connection = connect();
      }
      boolean got;
      try (PreparedStatement st = connection.prepareStatement("SELECT GET_LOCK(?, 0)")) {
        st.setString(1, lockName);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          int v = rs.getInt(1);
          if (rs.wasNull()) {
            throw new SQLException("GET_LOCK returned NULL");
          }
          got = v == 1;
        }
      }
      long now = System.nanoTime();
      if (got && !leading) {
        leading = true;
        sink.elected(now, now);
      } else if (!got && leading) {
        leading = false;
        sink.lost(now, "LOCK_TAKEN");
      }
    } catch (SQLException | RuntimeException e) {
      // stderr goes to the candidate's log under target/bench-logs.
      System.err.println(System.nanoTime() + " round failed" + (leading ? " while leading" : "") + ": " + e);
      if (leading) {
        leading = false;
        sink.lost(System.nanoTime(), "CONNECTION_FAILED");
      }
      dropConnection();
    }
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", Integer.toString(SOCKET_TIMEOUT_MILLIS));
    p.setProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_MILLIS));
    Connection c = DriverManager.getConnection(url, p);
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION wait_timeout = " + waitTimeoutSeconds);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void dropConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // The session is gone either way.
      }
      connection = null;
    }
  }

  @Override
  public void resign() {
    loop.execute(
        () -> {
          if (!leading || closed) {
            return;
          }
          leading = false;
          sink.lost(System.nanoTime(), "RESIGNED");
          sitOut = true;
          try (Statement st = connection.createStatement()) {
            st.execute("SELECT RELEASE_ALL_LOCKS()");
          } catch (SQLException e) {
            // Closing the session releases the lock too.
            dropConnection();
          }
        });
  }

  @Override
  public void close() {
    try {
      loop.submit(
              () -> {
                closed = true;
                if (leading) {
                  leading = false;
                  sink.lost(System.nanoTime(), "CLOSED");
                }
                dropConnection();
              })
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Best effort; the process exits next.
    }
    loop.shutdownNow();
  }
}
