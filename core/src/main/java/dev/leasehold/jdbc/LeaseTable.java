package dev.leasehold.jdbc;

import java.util.regex.Pattern;

/**
 * LeaseTable is the lease table's validated name, as the user gave it and as each dialect
 * quotes it; {@link LeaseSql} puts it into the statements.
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
  private final String quotedPg;

  private LeaseTable(String configured, String schema, String name) {
    this.configured = configured;
    this.schema = schema;
    this.name = name;
    this.quoted = (schema == null ? "" : "`" + schema + "`.") + "`" + name + "`";
    this.quotedPg = (schema == null ? "" : '"' + schema + "\".") + '"' + name + '"';
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

  /** schema is the schema part (MySQL family: a database), or null for the connection's default one. */
  String schema() {
    return schema;
  }

  /** name is the table part. */
  String name() {
    return name;
  }

  /**
   * quoted is the name as {@code dialect} quotes it: {@code `schema`.`name`} on the MySQL
   * family, {@code "schema"."name"} on PostgreSQL (where quoting keeps the name's case).
   */
  String quoted(SqlDialect dialect) {
    return dialect == SqlDialect.POSTGRESQL ? quotedPg : quoted;
  }

  @Override
  public String toString() {
    return quoted;
  }
}
