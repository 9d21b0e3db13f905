package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent.Cause;

/**
 * Command is what a {@link Machine} asks of its runtime. The records below the runtime
 * carries out itself; a {@link StoreCall} goes to the store port as one request with one
 * reply, bounded by the RPC timeout; any other command goes to the port as it is (a watch).
 *
 * <p>Every command is an immutable record, safe to pass between threads.
 */
public interface Command {
  /** SetTimer arms {@code timer} to fire at {@code atNanos}, replacing its previous arming. */
  record SetTimer(Enum<?> timer, long seq, long atNanos) implements Command {}

  /** CancelTimer disarms {@code timer}. */
  record CancelTimer(Enum<?> timer) implements Command {}

  /**
   * Publish reports a change to listeners; {@code leader} is null when no leader is known.
   * {@link Roles}, a machine's one transition choke point, makes every Publish: it derives
   * {@code from} from what the listeners were last told, so events pair up. {@code term} is the
   * new term's {@link Term} on {@code ELECTED}, and null on every other cause.
   */
  record Publish(
      ElectorState from, ElectorState to, Cause cause, LeaderInfo leader, long nanoTime, Term term)
      implements Command {
    /**
     * Publish rejects an ELECTED without its term, and a term on any other cause.
     *
     * @param from the role the listeners were last told
     * @param to the role after the change
     * @param cause why the change happened
     * @param leader the leader known after the change, or null
     * @param nanoTime the monotonic time of the change
     * @param term the new term on ELECTED, null on every other cause
     * @throws IllegalArgumentException for an ELECTED without a term, or a term on another cause
     */
    public Publish {
      if ((cause == Cause.ELECTED) != (term != null)) {
        throw new IllegalArgumentException(
            "a Publish carries a term exactly on ELECTED, but was " + cause + " with term " + term);
      }
    }
  }

  /**
   * Release gives a lease back to the store (etcd: revokes it, and its key goes with it). The
   * runtime retries with backoff until the store confirms or says the lease is gone, or close
   * stops waiting; it warns once twice the granted TTL ({@code ttlSeconds}; the requested one
   * when 0) has passed. A store that was down may still hold the lease then: etcd restores a
   * stopped member's leases with a fresh TTL.
   */
  record Release(long leaseId, long ttlSeconds) implements Command {}

  /**
   * TransferOutcome answers the {@link Input.Transfer} {@code id}: {@code target} is the leader
   * the term was handed to, with its new fencing token; or, when nothing is known to be handed
   * over, {@code refusal} says why and whether this instance kept its term.
   */
  record TransferOutcome(long id, LeaderInfo target, String refusal) implements Command {
    /**
     * TransferOutcome carries exactly one of a target and a refusal.
     *
     * @param id the transfer's id
     * @param target the new leader, or null
     * @param refusal why no target is known, or null
     * @throws IllegalArgumentException when both or neither are given
     */
    public TransferOutcome {
      if ((target == null) == (refusal == null)) {
        throw new IllegalArgumentException("a transfer's outcome is a target or a refusal, but was "
            + target + " and " + refusal);
      }
    }
  }
}
