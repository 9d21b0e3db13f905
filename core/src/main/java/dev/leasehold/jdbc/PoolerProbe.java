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
 * same source and asks each in turn for {@code pg_backend_pid()}, {@value #ROUNDS} times, each
 * question its own transaction. On a server or a session pooler a client connection keeps one
 * backend process for its life, and two open at once never share one. So either sight proves a
 * transaction pooler: the two connections answered by one process (an idle pooler hands its
 * most recently freed server connection to the next transaction), or one connection answered by
 * two (a busy pooler hands it whichever is free, as when several electors start at the same
 * instant). Then session features (advisory locks, session settings) would stay behind on a
 * pooled server connection, and the elector does without them, its followers polling, with one
 * INFO line that says so and what it costs. A pooler that showed neither in all rounds is not
 * detected; docs/backends.md says to point the elector past it.
 *
 * <p>Not thread-safe: confined to the store's worker thread.
 */
final class PoolerProbe {
  private static final Logger log = LoggerFactory.getLogger(PoolerProbe.class);
  private static final int ROUNDS = 8;

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
        log.info("{}: a transaction pooler serves {} (one server process answered two of its connections, or one"
            + " connection was answered by two), so the elector takes no session lock and makes no session setting there: followers"
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
      long firstPid = pid(first);
      long secondPid = pid(second);
      for (int i = 0; i < ROUNDS; i++) {
        long a = pid(first);
        long b = pid(second);
        if (a == b || a != firstPid || b != secondPid) {
          return true;
        }
      }
      return firstPid == secondPid;
    }
  }

  private static long pid(Connection c) throws SQLException {
    return SessionSource.connectionId(c, SqlDialect.POSTGRESQL);
  }
}
