package dev.leasehold.bench.contender;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * PolledLockContender is the elector of the anchor designs the bench compares Leasehold's SQL backends with: every
 * round each instance polls a lock ({@link PolledLock}: the scheduler design's session lock, or a ShedLock row) on a
 * connection it keeps open; "held" means it leads, "not held" that someone else does; an error ends the connection,
 * and a leader then stops leading. There is no deadline and no fencing token: a leader leads until a poll tells it
 * otherwise.
 *
 * <p>Choices the designs leave open, made in their favour and stated in the reports: the connection has a 5 s
 * socket timeout (HikariCP's default validation timeout; the drivers' default is none, which would leave a
 * partitioned leader hanging forever); {@code resign()} releases the lock and sits out one round, as Leasehold's
 * resign hold-off does, so another instance takes over.
 *
 * <p>All state is confined to one single-threaded executor.
 */
final class PolledLockContender implements Contender {
  /** SOCKET_TIMEOUT_MILLIS bounds each call; see the class comment. */
  static final int SOCKET_TIMEOUT_MILLIS = 5000;

  private final PolledLock lock;
  private final String url;
  private final String user;
  private final String password;
  private final Sink sink;
  private final ScheduledExecutorService loop;

  // Confined to loop.
  private Connection connection;
  private boolean leading;
  private boolean sitOut;
  private boolean closed;

  PolledLockContender(PolledLock lock, String url, String user, String password, String id, Sink sink) {
    this.lock = lock;
    this.url = url;
    this.user = user;
    this.password = password;
    this.sink = sink;
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "polled-lock-contender-" + id);
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void start() {
    loop.scheduleWithFixedDelay(this::round, 0, lock.periodMillis(), TimeUnit.MILLISECONDS);
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
      boolean held = lock.poll(connection, leading);
      long now = System.nanoTime();
      if (held && !leading) {
        leading = true;
        sink.elected(now, now);
      } else if (!held && leading) {
        leading = false;
        sink.lost(now, "LOCK_LOST");
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
    p.setProperty("connectTimeout", Integer.toString(SOCKET_TIMEOUT_MILLIS / lock.timeoutUnitMillis()));
    p.setProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_MILLIS / lock.timeoutUnitMillis()));
    Connection c = DriverManager.getConnection(url, p);
    try {
      lock.setUp(c);
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

  /** releaseQuietly gives the lock up, best effort: a session lock dies with the session, a row runs out. */
  private void releaseQuietly() {
    try {
      if (connection != null) {
        lock.release(connection);
      }
    } catch (SQLException e) {
      dropConnection();
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
          releaseQuietly();
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
                  releaseQuietly();
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
