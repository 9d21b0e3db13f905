package dev.leasehold.jdbc;

import java.sql.SQLException;

/**
 * StaleLeadershipException is thrown by {@link JdbcFencing#guard} when the lease row no longer
 * names the given term (another epoch or holder, released, or gone): the caller must roll its
 * transaction back. It is an {@link SQLException} (SQLState {@code 40L01}, in the transaction
 * rollback class), so code that rolls back on SQL errors does the right thing.
 *
 * <p>Immutable and thread-safe.
 */
public final class StaleLeadershipException extends SQLException {
  private static final long serialVersionUID = 1L;

  /** fencingToken is the stale term's token, serialized with the exception. */
  private final long fencingToken;

  /**
   * StaleLeadershipException reports that the term of {@code fencingToken} is over, and why.
   *
   * @param message why the term is over, for example that the row holds another epoch
   * @param fencingToken the token of the term that is over
   */
  public StaleLeadershipException(String message, long fencingToken) {
    super(message, "40L01");
    this.fencingToken = fencingToken;
  }

  /**
   * fencingToken is the stale term's token.
   *
   * @return the token the caller's leadership had, which the row no longer names
   */
  public long fencingToken() {
    return fencingToken;
  }
}
