package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * ServerCheck runs PROTOCOL.md's checks on every new term session, before its first statement,
 * and refuses (a {@link Refused} naming the setting) what the protocol cannot run on. On the
 * MySQL family: Galera, a read-only server, a lease table that is not InnoDB, and
 * {@code innodb_flush_log_at_trx_commit <> 1} unless the user opted in; PostgreSQL's checks are
 * {@link PgServerCheck}'s. A missing table is created when the user allows it, else reported
 * with the DDL to run.
 *
 * <p>Stateless and thread-safe; it runs on the store's worker, on the session it checks.
 */
final class ServerCheck {
  private ServerCheck() {}

  /** Refused is a server or table the elector will not run on; the message says why and what to do. */
  static final class Refused extends SQLException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, "LH001");
    }
  }

  /** Options are the user's opt-ins. */
  record Options(boolean createTable, boolean allowRelaxedDurability) {}

  /** check runs the checks on {@code c} and returns the server's dialect. */
  static SqlDialect check(Connection c, LeaseTable table, Options options) throws SQLException {
    if (SqlDialect.of(c) == SqlDialect.POSTGRESQL) {
      PgServerCheck.check(c, table, options);
      return SqlDialect.POSTGRESQL;
    }
    String version;
    boolean readOnly;
    boolean innodbReadOnly;
    long flush;
    String database;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "SELECT @@version, @@read_only, @@innodb_read_only, @@innodb_flush_log_at_trx_commit, DATABASE()")) {
      rs.next();
      version = rs.getString(1);
      readOnly = rs.getLong(2) != 0;
      innodbReadOnly = rs.getLong(3) != 0;
      flush = rs.getLong(4);
      database = rs.getString(5);
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) {
      if (rs.next() && "ON".equalsIgnoreCase(rs.getString(2))) {
        throw new Refused("refusing Galera (wsrep_on = ON on " + version + "): named locks are node-local there,"
            + " so GET_LOCK wake-ups and the term's binding to its session would not hold; use one primary");
      }
    }
    if (readOnly) {
      throw new Refused("refusing a read-only server (@@read_only = 1 on " + version + "): a replica, or a"
          + " primary demoted by a failover; point the elector at the primary");
    }
    if (innodbReadOnly) {
      throw new Refused("refusing a read-only server (@@innodb_read_only = 1 on " + version + ")");
    }
    if (flush != 1 && !options.allowRelaxedDurability()) {
      throw new Refused("refusing innodb_flush_log_at_trx_commit = " + flush + ": a server crash could lose a"
          + " committed take or renewal (a repeated epoch, a row that lives shorter than its MASTER's"
          + " deadline); set it to 1, or accept that with allowRelaxedDurability(true) on the builder");
    }
    String schema = table.schema() != null ? table.schema() : database;
    if (schema == null) {
      throw new Refused("no database selected for table " + table.configured() + ": name one in the JDBC URL"
          + " (jdbc:mariadb://host:3306/mydb) or qualify the table (table(\"mydb." + table.name() + "\"))");
    }
    String engine = engine(c, schema, table.name());
    String ddl = LeaseSql.of(SqlDialect.MARIADB, table).ddl();
    if (engine == null) {
      if (!options.createTable()) {
        throw new Refused("table " + table.configured() + " does not exist in database " + schema
            + "; create it with:\n" + ddl + ";\nor let the elector create it with createTable(true)");
      }
      try (Statement st = c.createStatement()) {
        st.execute(ddl);
      }
      engine = engine(c, schema, table.name());
    }
    if (engine == null || !engine.equalsIgnoreCase("InnoDB")) {
      throw new Refused("refusing table " + schema + "." + table.name() + ": its engine is " + engine
          + ", not InnoDB; the guard's shared lock and the row's durability need InnoDB (ALTER TABLE "
          + table + " ENGINE = InnoDB)");
    }
    return SqlDialect.of(version);
  }

  private static String engine(Connection c, String schema, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
