package dev.leasehold.jdbc;

import java.util.regex.Pattern;

/**
 * LeaseTable is the lease table's validated name, its DDL and the text of the statements
 * S1–S5 and S7 of PROTOCOL.md's SQL section with that name in them.
 *
 * <p>Immutable and thread-safe.
 */
final class LeaseTable {
  /** DEFAULT_NAME is the table's name unless configured. */
  static final String DEFAULT_NAME = "leasehold_lease";

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,63}");

  private final String configured;
  private final String schema;
  private final String name;
  private final String quoted;

  private LeaseTable(String configured, String schema, String name) {
    this.configured = configured;
    this.schema = schema;
    this.name = name;
    this.quoted = (schema == null ? "" : "`" + schema + "`.") + "`" + name + "`";
  }

  /**
   * of validates a table name, {@code table} or {@code schema.table}, each part a letter or
   * underscore then up to 63 letters, digits, underscores or dollars.
   *
   * @throws IllegalArgumentException naming the field and the value
   */
  static LeaseTable of(String table) {
    String problem = "letters, digits, _ or $, starting with a letter or _, at most 64 each";
    if (table == null) {
      throw new IllegalArgumentException("table must be a name like " + DEFAULT_NAME + " or mydb."
          + DEFAULT_NAME + " (" + problem + "), but was null");
    }
    String[] parts = table.split("\\.", -1);
    boolean ok = parts.length <= 2;
    for (String p : parts) {
      ok &= IDENTIFIER.matcher(p).matches();
    }
    if (!ok) {
      throw new IllegalArgumentException("table must be a name like " + DEFAULT_NAME + " or mydb."
          + DEFAULT_NAME + " (" + problem + "), but was \"" + table + "\"");
    }
    return parts.length == 2 ? new LeaseTable(table, parts[0], parts[1]) : new LeaseTable(table, null, table);
  }

  /** configured is the name as the user gave it. */
  String configured() {
    return configured;
  }

  /** schema is the schema part, or null for the connection's default database. */
  String schema() {
    return schema;
  }

  /** name is the table part. */
  String name() {
    return name;
  }

  /** ddl is PROTOCOL.md's CREATE TABLE with this table's name. */
  String ddl() {
    return "CREATE TABLE IF NOT EXISTS " + quoted + " (\n"
        + "  name       VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,\n"
        + "  holder     VARCHAR(32)  CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,\n"
        + "  candidate  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,\n"
        + "  epoch      BIGINT UNSIGNED NOT NULL,\n"
        + "  version    BIGINT UNSIGNED NOT NULL,\n"
        + "  ttl_us     BIGINT UNSIGNED NOT NULL,\n"
        + "  expires_at DATETIME(6)     NOT NULL,\n"
        + "  PRIMARY KEY (name)\n"
        + ") ENGINE = InnoDB";
  }

  /** S1: {@code name}. */
  String read() {
    return "SELECT holder, candidate, epoch, version, ttl_us, expires_at <= UTC_TIMESTAMP(6) AS expired FROM "
        + quoted + " WHERE name = ?";
  }

  /** S2: {@code name, holder, candidate, epoch, ttl, ttl}. */
  String insert() {
    return "INSERT INTO " + quoted + " (name, holder, candidate, epoch, version, ttl_us, expires_at)"
        + " VALUES (?, ?, ?, ?, 1, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)";
  }

  /** S3: {@code holder, candidate, ttl, ttl, name, h₀, v₀}. */
  String take() {
    return "UPDATE " + quoted + " SET holder = ?, candidate = ?, epoch = epoch + 1, version = version + 1,"
        + " ttl_us = ?, expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
        + " WHERE name = ? AND holder = ? AND version = ? AND (holder = '' OR expires_at <= UTC_TIMESTAMP(6))";
  }

  /** S4: {@code ttl, name, holder, epoch}. */
  String renew() {
    return "UPDATE " + quoted + " SET version = version + 1, expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
        + " WHERE name = ? AND holder = ? AND epoch = ?";
  }

  /** S5: {@code name, holder, epoch}. */
  String release() {
    return "UPDATE " + quoted + " SET holder = '', version = version + 1, expires_at = UTC_TIMESTAMP(6)"
        + " WHERE name = ? AND holder = ? AND epoch = ?";
  }

  /** S7: {@code name}; MariaDB has no FOR SHARE, MySQL 8 accepts both. */
  String guard() {
    return "SELECT epoch, holder FROM " + quoted + " WHERE name = ? LOCK IN SHARE MODE";
  }

  @Override
  public String toString() {
    return quoted;
  }
}
