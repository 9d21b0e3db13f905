package dev.leasehold.it.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * CommitProbe measures, from the harness, how long mariadbd takes to commit one durable
 * one-row UPDATE (what a MASTER's renewal is), every 100 ms on its own direct connection, and
 * records every round trip of at least the threshold as a stall of "store": the SQL analogue of
 * {@link StallMonitor}. A renewal that times out while the store itself could not commit
 * within the stall threshold is the store's slowness (a starved mariadbd, a slow fsync on a
 * shared disk), not Leasehold's, and the checker counts it in its stall column, never as an
 * overlap or stale write. The probe's row is in its own table, so no lease-row lock (a guarded
 * transaction, a take) ever delays it. A failed statement counts from its start to the failure,
 * then the probe reconnects. Thread-safe; {@link #close()} stops it.
 */
final class CommitProbe implements AutoCloseable {
  private final Thread thread;
  private volatile boolean stopped;

  CommitProbe(String jdbcUrl, String user, String password, HistoryRecorder recorder, long thresholdNanos) {
    thread = new Thread(() -> loop(jdbcUrl, user, password, recorder, thresholdNanos), "chaos-commit-probe");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop(String url, String user, String password, HistoryRecorder recorder, long threshold) {
    Connection c = null;
    while (!stopped) {
      long start = System.nanoTime();
      try {
        if (c == null) {
          Properties p = new Properties();
          p.setProperty("user", user);
          p.setProperty("password", password);
          // pgjdbc counts these in seconds, the MariaDB driver in milliseconds.
          boolean pg = url.startsWith("jdbc:postgresql:");
          p.setProperty("connectTimeout", pg ? "2" : "2000");
          p.setProperty("socketTimeout", pg ? "10" : "10000");
          c = DriverManager.getConnection(url, p);
          start = System.nanoTime();
        }
        try (Statement s = c.createStatement()) {
          s.executeUpdate("UPDATE chaos_probe SET n = n + 1 WHERE id = 1");
        }
      } catch (SQLException e) {
        close(c);
        c = null;
      }
      long end = System.nanoTime();
      if (end - start >= threshold && !stopped) {
        recorder.stalled("store", start, end);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        break;
      }
    }
    close(c);
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // Gone already.
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
