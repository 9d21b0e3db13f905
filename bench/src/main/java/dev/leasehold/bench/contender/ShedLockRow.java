package dev.leasehold.bench.contender;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * ShedLockRow is a leader lock the way applications use ShedLock's JDBC lock provider on PostgreSQL, written here
 * from ShedLock's documented table and statements (no ShedLock code): a row per lock name with {@code lock_until},
 * {@code locked_at} and {@code locked_by}, on the database's clock ({@code usingDbTime()}). Every second a follower
 * takes the row when {@code lock_until} has passed (an insert for a new name, else a conditional update), and the
 * holder extends its own unexpired lock by the TTL ({@code lockAtMostFor}), as ShedLock's
 * {@code KeepAliveLockProvider} does. Unlocking sets {@code lock_until} to now, as ShedLock does without
 * {@code lockAtLeastFor}. The table is the user's to create ({@link #DDL}). Immutable.
 */
final class ShedLockRow implements PolledLock {
  /** DDL is ShedLock's documented PostgreSQL table, under its default name. */
  static final String DDL = "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, "
      + "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
      + "PRIMARY KEY (name))";
  /** PERIOD_MILLIS is how often every instance polls the row: the scheduler's tick. */
  static final long PERIOD_MILLIS = 1000;

  private static final String NOW = "timezone('utc', CURRENT_TIMESTAMP)";
  // A new name: insert; a taken one: only when its lock has run out (ShedLock's upsert with usingDbTime()).
  private static final String TAKE = "INSERT INTO shedlock AS s (name, lock_until, locked_at, locked_by) "
      + "VALUES (?, " + NOW + " + ? * interval '1 millisecond', " + NOW + ", ?) ON CONFLICT (name) DO UPDATE "
      + "SET lock_until = EXCLUDED.lock_until, locked_at = EXCLUDED.locked_at, locked_by = EXCLUDED.locked_by "
      + "WHERE s.lock_until <= " + NOW;
  private static final String EXTEND = "UPDATE shedlock SET lock_until = " + NOW + " + ? * interval '1 millisecond' "
      + "WHERE name = ? AND locked_by = ? AND lock_until > " + NOW;
  private static final String UNLOCK = "UPDATE shedlock SET lock_until = " + NOW + " WHERE name = ? AND locked_by = ?";

  private final String name;
  private final String lockedBy;
  private final long ttlMillis;

  /** ShedLockRow locks {@code name} for {@code id}: ShedLock writes the host name, the id tells one host's apart. */
  ShedLockRow(String name, String id, long ttlMillis) {
    this.name = name;
    this.lockedBy = id;
    this.ttlMillis = ttlMillis;
  }

  @Override
  public long periodMillis() {
    return PERIOD_MILLIS;
  }

  @Override
  public int timeoutUnitMillis() {
    return 1000;
  }

  @Override
  public void setUp(Connection connection) {
    // ShedLock sets nothing on its sessions.
  }

  @Override
  public boolean poll(Connection connection, boolean leading) throws SQLException {
    return leading ? update(connection, EXTEND, ttlMillis, name, lockedBy)
        : update(connection, TAKE, name, ttlMillis, lockedBy);
  }

  @Override
  public void release(Connection connection) throws SQLException {
    update(connection, UNLOCK, name, lockedBy);
  }

  /** update runs one autocommitted statement and tells whether it changed a row. */
  private static boolean update(Connection connection, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement st = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        st.setObject(i + 1, parameters[i]);
      }
      return st.executeUpdate() == 1;
    }
  }
}
