package dev.leasehold.test;

/**
 * Fault names the faults a {@link Simulation} may put in a schedule; each is one call of
 * {@link VirtualFaults}. The defaults ({@link #OUTAGE}, {@link #PARTITION}, {@link #PAUSE},
 * {@link #DRIFT}) are those a leader's deadline protects against: code that checks
 * {@link dev.leasehold.Leadership#isValid()} right before each write passes them. The operator's
 * faults ({@link #EXPIRE_LEASE}, {@link #DELETE_KEY}) end a term before the leader can know it,
 * so only fenced writes pass them.
 */
public enum Fault {
  /** OUTAGE: every store request fails for a while; leases go on expiring. */
  OUTAGE,
  /** PARTITION: one instance loses its link to the store for a while. */
  PARTITION,
  /** PAUSE: one instance stops (a GC or VM pause) for a while, often past its deadline. */
  PAUSE,
  /** DRIFT: one instance's clock runs fast, or slow within the configured maxDriftRate. */
  DRIFT,
  /** EXPIRE_LEASE: the leader's lease expires at once, as an operator's revoke would do. */
  EXPIRE_LEASE,
  /** DELETE_KEY: the election key is deleted, as an operator could. */
  DELETE_KEY
}
