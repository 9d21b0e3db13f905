package dev.leasehold.it.jdbc;

import dev.leasehold.it.postgres.PostgresServer;
import java.util.List;

/**
 * PgRows reads what a PostgreSQL server holds for an election, as the superuser: the lease row
 * and the advisory lock {@code L(h)} of a holder token (keyed by the token's first 64 bits, as
 * PROTOCOL.md §10 says: {@code classid} the high 32 bits, {@code objid} the low ones).
 * Stateless and thread-safe.
 */
final class PgRows {
  private PgRows() {}

  /** row is [candidate, epoch, holder, version] of the election's row. */
  static List<String> row(PostgresServer db, String election) {
    return db.sql("SELECT candidate, epoch, holder, version FROM leasehold_lease WHERE name = '" + election + "'").get(0);
  }

  /** holder is the row's holder token ('' when released). */
  static String holder(PostgresServer db, String election) {
    return row(db, election).get(2);
  }

  /** lockOwners are the pids of the sessions that hold {@code L(holder)}. */
  static List<String> lockOwners(PostgresServer db, String holder) {
    long classid = Long.parseLong(holder.substring(0, 8), 16);
    long objid = Long.parseLong(holder.substring(8, 16), 16);
    return db.sql("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
        + " AND classid = " + classid + " AND objid = " + objid).stream().map(r -> r.get(0)).toList();
  }

  /** advisoryLocks counts every advisory lock held on the server. */
  static long advisoryLocks(PostgresServer db) {
    return Long.parseLong(db.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").get(0).get(0));
  }
}
