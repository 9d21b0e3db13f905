package dev.leasehold.spec.sim;

/**
 * Mutation breaks one ingredient of the protocol's safety argument, in the simulated store, the
 * simulated etcd client ({@link SimPort}, {@link ObservedMachine}) or the configuration handed to
 * the real machine, so that a test can show the simulation's checks are able to fail.
 * {@link #NONE} is the faithful simulation. Mutations of core's runtime itself are made in its
 * source instead ({@link RuntimeMutationTest}).
 */
enum Mutation {
  /** The faithful simulation. */
  NONE,
  /**
   * Store fault: the isolated old etcd leader, which acks keep-alives without renewing, also
   * serves "linearizable" reads from its stale state, with its old raft term (what etcd issue
   * 20418 allows for a paused leader). The term check then confirms renewals that never happened.
   */
  STALE_READS_ON_ISOLATED_LEADER,
  /**
   * Client fault: a renewal is confirmed by the keep-alive ack alone. The port answers the
   * machine's ConfirmRead itself with the key it believes it holds and the ack's raft term.
   */
  ACK_ALONE_CONFIRMS,
  /**
   * Configuration fault: the machine is told maxDriftRate 0 and margin 0 (deadline = send time +
   * TTL) while the simulated clocks run up to 5 % slow.
   */
  NO_DRIFT_ALLOWANCE_NO_MARGIN,
  /**
   * Client fault: a renewal's deadline is measured from the keep-alive reply's arrival instead of
   * its send time. {@link ObservedMachine} sends the keep-alive itself when RENEW fires and hands
   * the machine the RENEW timer (and then the reply) only when the reply has arrived.
   */
  RECEIVE_TIME_DEADLINE
}
