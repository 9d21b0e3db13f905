package dev.leasehold.runtime;

import java.time.Duration;

/**
 * Term is what a machine knows of a term of its own at the instant it begins, handed to the
 * runtime once, in the {@link Command.Publish} of {@code ELECTED}: the runtime builds the term's
 * {@code Leadership} from it and asks the machine nothing more about it. After that, only the
 * deadline moves ({@link Machine#deadline()}, read after every step).
 *
 * <p>Immutable and thread-safe.
 *
 * @param token the term's fencing token: it strictly increases from term to term
 * @param leaseId the store's id of the lease the term rides on (SQL: the holder token's first 64
 *     bits)
 * @param deadline the local deadline (monotonic nanoseconds) at the term's start
 * @param detail the store's own identity of the term, which its guard needs beyond the token
 *     (SQL: the row and its holder token); null when the store needs nothing more
 * @param grantedTtl the TTL the store granted the term's lease (etcd: whole seconds, and 3.4
 *     grants at least 2 s); null when the store grants the configured one
 */
public record Term(long token, long leaseId, long deadline, Term.Detail detail, Duration grantedTtl) {
  /**
   * Term is a term whose lease was granted the configured TTL.
   *
   * @param token the term's fencing token
   * @param leaseId the store's id of the lease the term rides on
   * @param deadline the local deadline at the term's start, in monotonic nanoseconds
   * @param detail the store's own identity of the term, or null
   */
  public Term(long token, long leaseId, long deadline, Term.Detail detail) {
    this(token, leaseId, deadline, detail, null);
  }

  /**
   * Term is a term of a store that needs nothing beyond the token for its guard.
   *
   * @param token the term's fencing token
   * @param leaseId the store's id of the lease the term rides on
   * @param deadline the local deadline at the term's start, in monotonic nanoseconds
   */
  public Term(long token, long leaseId, long deadline) {
    this(token, leaseId, deadline, null, null);
  }

  /**
   * Detail is a store's own identity of a term, kept by the term's {@code Leadership} for the
   * store's guard and read back with {@link Terms#detail}; implementations are immutable
   * records.
   */
  public interface Detail {}
}
