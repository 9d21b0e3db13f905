package dev.leasehold.jdbc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * SqlDialect is the server family a SQL elector runs on, and what differs between them: the
 * statements' text ({@link LeaseSql}), the wake-up lock ({@code GET_LOCK} or PostgreSQL's
 * session advisory lock), the start-up checks and the session's settings (PROTOCOL.md §10).
 * The row protocol is the same on all three.
 *
 * <p>Immutable and thread-safe (an enum).
 */
enum SqlDialect {
  /** MARIADB takes fractional seconds in GET_LOCK. */
  MARIADB,
  /** MYSQL takes whole seconds in GET_LOCK; waits are rounded up. */
  MYSQL,
  /** POSTGRESQL wakes followers with a session advisory lock, bounded by {@code lock_timeout}. */
  POSTGRESQL;

  /** of tells MariaDB from MySQL by {@code @@version} (MariaDB's contains "MariaDB", whatever the driver). */
  static SqlDialect of(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }

  /**
   * of tells the family from the driver's metadata, which needs no round trip: PostgreSQL, or
   * the MySQL family, which {@link ServerCheck} then tells apart by {@code @@version}.
   */
  static SqlDialect of(Connection c) throws SQLException {
    String product = String.valueOf(c.getMetaData().getDatabaseProductName()).toLowerCase(Locale.ROOT);
    if (product.contains("postgres")) {
      return POSTGRESQL;
    }
    return product.contains("mariadb") ? MARIADB : MYSQL;
  }

  /** ofUrl guesses the family from a JDBC URL before any connection: only the driver's options depend on it. */
  static SqlDialect ofUrl(String url) {
    return url != null && url.startsWith("jdbc:postgresql:") ? POSTGRESQL : MARIADB;
  }

  /** lockTimeout is GET_LOCK's timeout argument for a wait of {@code nanos} (MySQL family). */
  Object lockTimeout(long nanos) {
    if (nanos <= 0) {
      return 0;
    }
    if (this == MARIADB) {
      return BigDecimal.valueOf((nanos + 999) / 1_000, 6);
    }
    return (nanos + 999_999_999L) / 1_000_000_000L;
  }

  /** isDuplicateKey tells whether {@code e} is a unique-key violation (S2 lost to another insert). */
  boolean isDuplicateKey(SQLException e) {
    return this == POSTGRESQL ? "23505".equals(e.getSQLState()) : e.getErrorCode() == 1062;
  }

  /** connectionIdQuery returns the server's id of the session it runs on. */
  String connectionIdQuery() {
    return this == POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
  }
}
