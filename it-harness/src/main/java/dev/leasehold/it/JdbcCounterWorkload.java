package dev.leasehold.it;

import dev.leasehold.Leadership;
import dev.leasehold.jdbc.JdbcFencing;
import dev.leasehold.jdbc.StaleLeadershipException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

/**
 * JdbcCounterWorkload is the chaos workload on MariaDB/MySQL and PostgreSQL: it reads the counter row of
 * {@code chaos_counter}, thinks, then in one transaction on its own connection (never the
 * elector's term session) runs {@link JdbcFencing#guard}, updates the row to n+1 if it still
 * holds the value read (else CONFLICT), appends the write to the store's log table
 * {@code chaos_log}, and commits. A {@link StaleLeadershipException} from the guard is FENCED;
 * any other failure is ERROR (outcome unknown: a commit may be applied although its reply was
 * lost), and the connection is dropped and opened again for the next attempt.
 *
 * <p>The connection has the rpc timeout as connect and socket timeout, no automatic
 * reconnection, {@code innodb_lock_wait_timeout = 1} and {@code wait_timeout = ⌈TTL⌉ + 5 s}.
 * The wait timeout is a trade-off: a transaction left open on a link that went silent holds the
 * row's shared lock, which keeps every take out, until the server ends its session, so it should
 * be short; but a leader frozen past its TTL (the candidate-pause fault: TTL + 1.5–2.5 s) must
 * find its connection still open when it thaws, or its stale write fails on the dead connection
 * (ERROR) and never reaches the guard.
 *
 * <p>On PostgreSQL the connection has pgjdbc's timeouts (whole seconds: the rpc timeout rounded
 * up) and no session setting, so that it also works through a transaction pooler: each guarded
 * transaction sets its own {@code lock_timeout} of 1 s, and the guard bounds its idle time.
 * Thread-safe as {@link CounterWorkload} says.
 */
final class JdbcCounterWorkload extends CounterWorkload {
  private final String url;
  private final String user;
  private final String password;
  private final String counterKey;
  private final Duration rpcTimeout;
  private final long waitTimeoutSeconds;
  private final boolean postgres;
  private Connection connection;

  JdbcCounterWorkload(String url, String user, String password, String counterKey, String id, long thinkMillis,
      Duration rpcTimeout, Duration ttl, PrintStream out) {
    super(id, thinkMillis, out);
    this.url = url;
    this.user = user;
    this.password = password;
    this.counterKey = counterKey;
    this.rpcTimeout = rpcTimeout;
    this.waitTimeoutSeconds = (ttl.toMillis() + 999) / 1000 + 5;
    this.postgres = url.startsWith("jdbc:postgresql:");
  }

  @Override
  void attempt(Leadership l) throws InterruptedException {
    long check = System.nanoTime();
    if (!l.isValid()) {
      return;
    }
    long current;
    Connection c;
    try {
      c = connection();
      current = read(c);
      c.commit();
    } catch (SQLException e) {
      drop();
      sleep(50);
      return;
    }
    if (thinkMillis > 0) {
      Thread.sleep(thinkMillis);
    }
    long token = l.fencingToken();
    long n = nextSeq();
    long next = current + 1;
    long send = sent(token, n);
    String outcome;
    long shown = next;
    try {
      if (postgres) {
        // Per transaction, not per session: behind a transaction pooler a session setting would
        // stay on whichever server connection ran it, for other clients to inherit.
        try (Statement s = c.createStatement()) {
          s.execute("SET LOCAL lock_timeout = 1000");
        }
      }
      JdbcFencing.guard(c, l);
      if (update(c, current, next, token, n) == 1) {
        log(c, next, token, n);
        c.commit();
        outcome = "OK";
      } else {
        c.rollback();
        outcome = "CONFLICT";
        shown = current;
      }
    } catch (StaleLeadershipException e) {
      outcome = "FENCED";
      shown = current;
      rollbackOrDrop(c);
    } catch (SQLException e) {
      outcome = "ERROR";
      drop();
    }
    written(check, send, token, outcome, shown, n);
  }

  private long read(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT n FROM chaos_counter WHERE name = ?")) {
      ps.setString(1, counterKey);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("no counter row " + counterKey);
        }
        return rs.getLong(1);
      }
    }
  }

  private int update(Connection c, long current, long next, long token, long n) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE chaos_counter SET n = ?, writer = ?, token = ?, seq = ? WHERE name = ? AND n = ?")) {
      ps.setLong(1, next);
      ps.setString(2, id);
      ps.setLong(3, token);
      ps.setLong(4, n);
      ps.setString(5, counterKey);
      ps.setLong(6, current);
      return ps.executeUpdate();
    }
  }

  private void log(Connection c, long next, long token, long n) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO chaos_log (kind, name, n, writer, token, seq) VALUES ('W', ?, ?, ?, ?, ?)")) {
      ps.setString(1, counterKey);
      ps.setLong(2, next);
      ps.setString(3, id);
      ps.setLong(4, token);
      ps.setLong(5, n);
      ps.executeUpdate();
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Properties p = new Properties();
      p.setProperty("user", user);
      if (password != null) {
        p.setProperty("password", password);
      }
      if (postgres) {
        // pgjdbc counts these in seconds.
        String seconds = Long.toString(Math.max(1, (rpcTimeout.toMillis() + 999) / 1000));
        p.setProperty("connectTimeout", seconds);
        p.setProperty("socketTimeout", seconds);
      } else {
        p.setProperty("connectTimeout", Long.toString(rpcTimeout.toMillis()));
        p.setProperty("socketTimeout", Long.toString(rpcTimeout.toMillis()));
        p.setProperty("autoReconnect", "false");
      }
      Connection c = DriverManager.getConnection(url, p);
      try (Statement s = c.createStatement()) {
        // PostgreSQL: no session setting (see attempt); the guard itself bounds the transaction's
        // idle time (to the TTL).
        if (!postgres) {
          s.execute("SET SESSION innodb_lock_wait_timeout = 1, wait_timeout = " + waitTimeoutSeconds);
        }
        c.setAutoCommit(false);
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  private void rollbackOrDrop(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      drop();
    }
  }

  private void drop() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Gone already.
      }
      connection = null;
    }
  }

  /** close drops the connection; call from the loop's thread or after it ended. */
  void close() {
    drop();
  }
}
