package dev.leasehold.jdbc;

/**
 * LeaseSql is the text of the row statements S1–S5 and S7 and of the table's DDL, for one
 * table on one dialect (PROTOCOL.md §10, "Statements"). The statements mean the same on every
 * dialect; only the spelling differs: the server clock is {@code UTC_TIMESTAMP(6)} on the MySQL
 * family and {@code clock_timestamp()} on PostgreSQL (never {@code now()}, which is the start
 * of the transaction), and PostgreSQL spells the guard's shared lock {@code FOR SHARE}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param ddl the CREATE TABLE IF NOT EXISTS statement
 * @param read S1: {@code name}
 * @param insert S2: {@code name, holder, candidate, epoch, ttl, ttl}; a duplicate key changes no row
 * @param take S3: {@code holder, candidate, ttl, ttl, name, h₀, v₀}
 * @param renew S4: {@code ttl, name, holder, epoch}
 * @param release S5: {@code name, holder, epoch}
 * @param guard S7: {@code name}; on PostgreSQL {@code idleLimit, name}: it also sets
 *     {@code idle_in_transaction_session_timeout} for the rest of the guarded transaction, so
 *     that a writer that dies inside it holds the row's shared lock for at most that long
 */
record LeaseSql(String ddl, String read, String insert, String take, String renew, String release, String guard) {

  /** of spells the statements for {@code table} on {@code dialect}. */
  static LeaseSql of(SqlDialect dialect, LeaseTable table) {
    return dialect == SqlDialect.POSTGRESQL ? postgres(table.quoted(dialect)) : mysql(table.quoted(dialect));
  }

  private static LeaseSql mysql(String t) {
    String now = "UTC_TIMESTAMP(6)";
    String later = now + " + INTERVAL ? MICROSECOND";
    return new LeaseSql(
        "CREATE TABLE IF NOT EXISTS " + t + " (\n"
            + "  name       VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,\n"
            + "  holder     VARCHAR(32)  CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,\n"
            + "  candidate  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,\n"
            + "  epoch      BIGINT UNSIGNED NOT NULL,\n"
            + "  version    BIGINT UNSIGNED NOT NULL,\n"
            + "  ttl_us     BIGINT UNSIGNED NOT NULL,\n"
            + "  expires_at DATETIME(6)     NOT NULL,\n"
            + "  PRIMARY KEY (name)\n"
            + ") ENGINE = InnoDB",
        read(t, now),
        "INSERT INTO " + t + " (name, holder, candidate, epoch, version, ttl_us, expires_at)"
            + " VALUES (?, ?, ?, ?, 1, ?, " + later + ")",
        take(t, now, later),
        renew(t, later),
        release(t, now),
        // MariaDB has no FOR SHARE; MySQL 8 accepts both.
        "SELECT epoch, holder FROM " + t + " WHERE name = ? LOCK IN SHARE MODE");
  }

  private static LeaseSql postgres(String t) {
    String now = "clock_timestamp()";
    String later = now + " + ? * INTERVAL '1 microsecond'";
    return new LeaseSql(
        "CREATE TABLE IF NOT EXISTS " + t + " (\n"
            + "  name       VARCHAR(128) COLLATE \"C\" NOT NULL,\n"
            + "  holder     VARCHAR(32)  COLLATE \"C\" NOT NULL,\n"
            + "  candidate  VARCHAR(255) NOT NULL,\n"
            + "  epoch      BIGINT NOT NULL CHECK (epoch >= 0),\n"
            + "  version    BIGINT NOT NULL CHECK (version >= 0),\n"
            + "  ttl_us     BIGINT NOT NULL CHECK (ttl_us >= 0),\n"
            + "  expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,\n"
            + "  PRIMARY KEY (name)\n"
            + ")",
        read(t, now),
        // ON CONFLICT DO NOTHING: a lost insert changes no row, as a duplicate key does on MySQL,
        // without an error in the server's log.
        "INSERT INTO " + t + " (name, holder, candidate, epoch, version, ttl_us, expires_at)"
            + " VALUES (?, ?, ?, ?, 1, ?, " + later + ") ON CONFLICT (name) DO NOTHING",
        take(t, now, later),
        renew(t, later),
        release(t, now),
        "SELECT epoch, holder, set_config('idle_in_transaction_session_timeout', ?, true) FROM " + t
            + " WHERE name = ? FOR SHARE");
  }

  private static String read(String t, String now) {
    return "SELECT holder, candidate, epoch, version, ttl_us, expires_at <= " + now + " AS expired FROM " + t
        + " WHERE name = ?";
  }

  private static String take(String t, String now, String later) {
    return "UPDATE " + t + " SET holder = ?, candidate = ?, epoch = epoch + 1, version = version + 1,"
        + " ttl_us = ?, expires_at = " + later
        + " WHERE name = ? AND holder = ? AND version = ? AND (holder = '' OR expires_at <= " + now + ")";
  }

  private static String renew(String t, String later) {
    return "UPDATE " + t + " SET version = version + 1, expires_at = " + later
        + " WHERE name = ? AND holder = ? AND epoch = ?";
  }

  private static String release(String t, String now) {
    return "UPDATE " + t + " SET holder = '', version = version + 1, expires_at = " + now
        + " WHERE name = ? AND holder = ? AND epoch = ?";
  }
}
