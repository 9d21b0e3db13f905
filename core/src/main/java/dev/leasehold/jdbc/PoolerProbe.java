package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PoolerProbe tells whether a transaction pooler (PgBouncer in {@code pool_mode = transaction},
 * or any proxy that hands each transaction whichever server connection is free) serves an
 * elector's PostgreSQL sessions, once per elector, at its first session (PROTOCOL.md §10,
 * "Behind a transaction pooler").
 *
 * <p>The probe: while the term session's connection is open, it opens a second one from the
 * same source and asks each for {@code pg_backend_pid()}, three times in turn. Two client
 * connections open at once on a server never share a backend process, so one equal pair proves
 * a pooler: then session features (advisory locks, session settings) would stay behind on a
 * pooled server connection, and the elector does without them, its followers polling, with one
 * INFO line that says so and what it costs. A pooler that never hands the same server
 * connection to both in turn (round-robin assignment) is not detected; docs/backends.md says to
 * point the elector past it.
 *
 * <p>Not thread-safe: confined to the store's worker thread.
 */
final class PoolerProbe {
  private static final Logger log = LoggerFactory.getLogger(PoolerProbe.class);
  private static final int ROUNDS = 3;

  private final String logName;
  private final long pollIntervalMillis;
  private Boolean pooled;

  PoolerProbe(String logName, long pollIntervalMillis) {
    this.logName = logName;
    this.pollIntervalMillis = pollIntervalMillis;
  }

  /** pooled probes at the first call, with {@code first} the session's open connection; later calls repeat the answer. */
  boolean pooled(SessionSource source, Connection first, int timeoutMillis) throws SQLException {
    if (pooled == null) {
      pooled = probe(source, first, timeoutMillis);
      if (pooled) {
        log.info("{}: a transaction pooler serves {} (two connections open at once ran on one server"
            + " process), so the elector takes no session lock and makes no session setting there: followers"
            + " are woken by their poll, every {} ms, instead of at once, which is what a graceful handover"
            + " and a crash failover cost in addition; point leasehold.jdbc.url past the pooler to get"
            + " millisecond handovers", logName, source, pollIntervalMillis);
      }
    }
    return pooled;
  }

  private static boolean probe(SessionSource source, Connection first, int timeoutMillis) throws SQLException {
    try (Connection second = source.connect(timeoutMillis)) {
      second.setNetworkTimeout(Runnable::run, Math.max(1, timeoutMillis));
      for (int i = 0; i < ROUNDS; i++) {
        if (SessionSource.connectionId(first, SqlDialect.POSTGRESQL)
            == SessionSource.connectionId(second, SqlDialect.POSTGRESQL)) {
          return true;
        }
      }
      return false;
    }
  }
}
