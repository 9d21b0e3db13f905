package dev.leasehold.jdbc;

import java.math.BigDecimal;

/**
 * SqlDialect is what differs between the servers the SQL backend runs on; only the GET_LOCK
 * timeout's unit does.
 *
 * <p>Immutable and thread-safe (an enum).
 */
enum SqlDialect {
  /** MARIADB takes fractional seconds in GET_LOCK. */
  MARIADB,
  /** MYSQL takes whole seconds in GET_LOCK; waits are rounded up. */
  MYSQL;

  /** of tells the dialect from {@code @@version} (MariaDB's contains "MariaDB", whatever the driver). */
  static SqlDialect of(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }

  /** lockTimeout is GET_LOCK's timeout argument for a wait of {@code nanos}. */
  Object lockTimeout(long nanos) {
    if (nanos <= 0) {
      return 0;
    }
    if (this == MARIADB) {
      return BigDecimal.valueOf((nanos + 999) / 1_000, 6);
    }
    return (nanos + 999_999_999L) / 1_000_000_000L;
  }
}
