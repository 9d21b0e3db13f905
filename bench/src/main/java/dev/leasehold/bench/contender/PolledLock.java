package dev.leasehold.bench.contender;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * PolledLock is the lock of one candidate of a polled-lock design: what {@link PolledLockContender} does each round
 * on the connection it keeps, and how it gives the lock up. Implementations are immutable; the contender calls them
 * from its one thread.
 */
interface PolledLock {
  /** periodMillis is the design's round: every candidate polls this often. */
  long periodMillis();

  /** timeoutUnitMillis is how many milliseconds the driver's connectTimeout and socketTimeout count in one unit. */
  int timeoutUnitMillis();

  /** setUp prepares a new session, for example with the server's idle timeout. */
  void setUp(Connection connection) throws SQLException;

  /** poll takes the lock, or keeps it when {@code leading}, and tells whether this candidate holds it now. */
  boolean poll(Connection connection, boolean leading) throws SQLException;

  /** release gives the lock up, on resign and close. */
  void release(Connection connection) throws SQLException;
}
