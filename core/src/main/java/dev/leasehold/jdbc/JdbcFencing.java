package dev.leasehold.jdbc;

import dev.leasehold.Leadership;
import dev.leasehold.runtime.Terms;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;

/**
 * JdbcFencing fences the user's own writes with a term of a {@link JdbcLeaderElector}: inside
 * the user's transaction, {@link #guard} reads the lease row under a shared lock (S7,
 * {@code SELECT epoch, holder ... LOCK IN SHARE MODE}, or {@code FOR SHARE} on PostgreSQL,
 * where it also limits the transaction's idle time to the TTL with
 * {@code idle_in_transaction_session_timeout}) and refuses unless it still names the
 * term's epoch and holder token. Every take, renewal and release needs an exclusive lock on
 * that row, so until the transaction ends no new term can begin: a write after a successful
 * guard commits as the term's own, before any successor exists, and a stale leader's guard
 * fails. This holds for a leader paused past its deadline and after an operator's edit.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   try {
 *     JdbcFencing.guard(c, leadership);
 *     ... the leader's writes on c ...
 *     c.commit();
 *   } catch (SQLException e) {   // StaleLeadershipException included
 *     c.rollback();
 *     throw e;
 *   }
 * }
 * }</pre>
 *
 * <p>Only writes in the same transaction, on the same server, are fenced; pass the token to
 * any other system that keeps the highest token it has seen. Keep guarded transactions shorter
 * than the RPC timeout: the shared lock holds the MASTER's renewal back, and a renewal that
 * times out ends the term. Stateless and thread-safe (the connection is the caller's).
 */
public final class JdbcFencing {
  private JdbcFencing() {}

  /**
   * guard runs S7 on {@code connection} and returns if the row names {@code leadership}'s
   * epoch and holder token; the row then stays share-locked until the transaction ends.
   *
   * @param connection the caller's connection, in a transaction (autocommit off), on the database
   *     that holds the lease table
   * @param leadership the term the caller's writes belong to, from a JDBC elector
   * @throws IllegalArgumentException if the connection is in autocommit mode (the server would
   *     hold no lock after S7, and the guard would protect nothing), or the leadership is not a
   *     JDBC term
   * @throws StaleLeadershipException if the row names another term, is released or is gone;
   *     roll back
   * @throws SQLException if S7 itself fails; roll back
   */
  public static void guard(Connection connection, Leadership leadership) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(leadership, "leadership");
    SqlTerm term = Terms.detail(leadership, SqlTerm.class).orElseThrow(() -> new IllegalArgumentException(
        "leadership must come from a JdbcLeaderElector, but was " + leadership));
    if (connection.getAutoCommit()) {
      throw new IllegalArgumentException("connection must be in a transaction (setAutoCommit(false)):"
          + " with autocommit on, the server holds no lock after S7 and the guard would protect nothing");
    }
    SqlDialect dialect = SqlDialect.of(connection);
    try (PreparedStatement ps = connection.prepareStatement(LeaseSql.of(dialect, LeaseTable.of(term.table())).guard())) {
      if (dialect == SqlDialect.POSTGRESQL) {
        ps.setString(1, Long.toString(term.ttlMillis()));
        ps.setString(2, term.name());
      } else {
        ps.setString(1, term.name());
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw stale(term, "the lease row " + term.name() + " is gone");
        }
        long epoch = rs.getLong(1);
        String holder = rs.getString(2);
        if (epoch != term.epoch() || !term.holder().value().equals(holder)) {
          String now = holder == null || holder.isEmpty() ? "released" : "held by epoch " + epoch;
          throw stale(term, "the lease row " + term.name() + " is " + now);
        }
      }
    }
  }

  private static StaleLeadershipException stale(SqlTerm term, String why) {
    return new StaleLeadershipException("stale leadership: term " + term.epoch() + " is over (" + why
        + "); roll back", term.epoch());
  }
}
