package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * PgServerCheck is {@link ServerCheck} on PostgreSQL: it refuses a hot standby
 * ({@code pg_is_in_recovery()}), a read-only session ({@code transaction_read_only}), relaxed
 * durability ({@code fsync} or {@code synchronous_commit} off) unless the user opted in, an
 * unlogged lease table (a crash empties it) and a user who may not read, insert and update the
 * table; a missing table is created when the user allows it, else reported with the DDL.
 *
 * <p>Stateless and thread-safe; it runs on the store's worker, on the session it checks.
 */
final class PgServerCheck {
  private PgServerCheck() {}

  /** check runs the checks on {@code c}, a PostgreSQL session, creating a missing table if allowed. */
  static void check(Connection c, LeaseTable table, ServerCheck.Options options) throws SQLException {
    String version;
    boolean recovery;
    boolean readOnly;
    String synchronousCommit;
    boolean fsync;
    String currentSchema;
    String user;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_setting('server_version'), pg_is_in_recovery(),"
            + " current_setting('transaction_read_only'), current_setting('synchronous_commit'),"
            + " current_setting('fsync'), current_schema(), current_user")) {
      rs.next();
      version = "PostgreSQL " + rs.getString(1);
      recovery = rs.getBoolean(2);
      readOnly = "on".equals(rs.getString(3));
      synchronousCommit = rs.getString(4);
      fsync = "on".equals(rs.getString(5));
      currentSchema = rs.getString(6);
      user = rs.getString(7);
    }
    if (recovery) {
      throw new ServerCheck.Refused("refusing a hot standby (pg_is_in_recovery() is true on " + version + "): it"
          + " takes no writes, and a standby promoted after a failover may lack the last commits; point the"
          + " elector at the primary");
    }
    if (readOnly) {
      throw new ServerCheck.Refused("refusing a read-only session (transaction_read_only = on for user " + user
          + " on " + version + ", from default_transaction_read_only for the user, the database or the server);"
          + " the elector writes the lease row");
    }
    if ((!fsync || "off".equals(synchronousCommit)) && !options.allowRelaxedDurability()) {
      throw new ServerCheck.Refused("refusing " + (fsync ? "synchronous_commit = off" : "fsync = off") + " on "
          + version + ": a server crash could lose a committed take or renewal (a repeated epoch, a row that"
          + " lives shorter than its MASTER's deadline); turn it on, or accept that with"
          + " allowRelaxedDurability(true) on the builder");
    }
    String schema = table.schema() != null ? table.schema() : currentSchema;
    if (schema == null) {
      throw new ServerCheck.Refused("no schema for table " + table.configured() + ": user " + user + "'s search_path"
          + " names none that exists; qualify the table (table(\"myschema." + table.name() + "\"))");
    }
    String ddl = LeaseSql.of(SqlDialect.POSTGRESQL, table).ddl();
    Found found = find(c, schema, table.name());
    if (found == null) {
      if (!options.createTable()) {
        throw new ServerCheck.Refused("table " + table.configured() + " does not exist in schema " + schema
            + "; create it with:\n" + ddl + ";\nor let the elector create it with createTable(true)");
      }
      try (Statement st = c.createStatement()) {
        st.execute(ddl);
      }
      found = find(c, schema, table.name());
    }
    if (found == null) {
      throw new ServerCheck.Refused("table " + table.configured() + " is still missing after CREATE TABLE in"
          + " schema " + schema + ": is it a view, or another kind of relation?");
    }
    if (found.unlogged()) {
      throw new ServerCheck.Refused("refusing table " + schema + "." + table.name() + ": it is UNLOGGED, and a"
          + " server crash empties it (ALTER TABLE " + table.quoted(SqlDialect.POSTGRESQL) + " SET LOGGED)");
    }
    if (!found.writable()) {
      throw new ServerCheck.Refused("user " + user + " may not read, insert and update table " + schema + "."
          + table.name() + " (GRANT SELECT, INSERT, UPDATE ON " + table.quoted(SqlDialect.POSTGRESQL) + " TO "
          + user + ")");
    }
  }

  private record Found(boolean unlogged, boolean writable) {}

  private static Found find(Connection c, String schema, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT c.relpersistence = 'u',"
        + " has_table_privilege(c.oid, 'SELECT') AND has_table_privilege(c.oid, 'INSERT')"
        + " AND has_table_privilege(c.oid, 'UPDATE')"
        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        + " WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Found(rs.getBoolean(1), rs.getBoolean(2)) : null;
      }
    }
  }
}
