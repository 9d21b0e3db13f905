package dev.leasehold.etcd.protocol;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;

/**
 * SessionCommand is what a session's machines ask of the session's store (PROTOCOL.md §11):
 * an election's campaign and fenced delete, its joining and leaving the session, and the
 * session lease's news for every election on it.
 *
 * <p>All commands are immutable records, safe to pass between threads.
 */
public sealed interface SessionCommand extends Command {
  /**
   * Join registers the election with the session: its inbox gets the lease's state at once,
   * then every {@link SessionInput.Live}, {@link SessionInput.Ended} and, from the session's
   * one watch, {@link SessionInput.KeySeen} of its key.
   */
  record Join() implements SessionCommand {}

  /** Leave unregisters the election; nothing more reaches its inbox from the session. */
  record Leave() implements SessionCommand {}

  /**
   * Campaign is the compare-and-swap on the election's key: {@code If CreateRevision(K) == 0
   * Then Put(K, id, lease) Else Get(K)}.
   */
  record Campaign(long op, long leaseId) implements SessionCommand, Gated {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.CampaignFailed(op, reason);
    }
  }

  /**
   * Gated is an election's call, which passes the session's gate: the runtime waits for it
   * {@code 4 × rpcTimeout}. It may first wait for a free slot of the gate (at most {@code 3 ×
   * rpcTimeout}, else it is not sent), then has its own deadline of {@code rpcTimeout} at etcd.
   * A reply after the runtime gave up on the call is a put the election never leads on, and must
   * delete again.
   */
  interface Gated extends StoreCall {
    @Override
    default long timeoutNanos(long rpcTimeoutNanos) {
      return 4 * rpcTimeoutNanos;
    }
  }

  /**
   * FencedDelete deletes the election's key only if it is still the term {@code token} made:
   * {@code If ModRevision(K) == token Then Delete(K)}. A copy applied late finds a later term's
   * key with another mod revision and does nothing.
   */
  record FencedDelete(long op, long token) implements SessionCommand, Gated {
    @Override
    public Input failed(String reason) {
      return new SessionInput.DeleteFailed(op, reason);
    }
  }

  /**
   * Transfer hands the election's key to the member {@code to} in one transaction (PROTOCOL.md
   * §11.7): {@code If ModRevision(K) == token ∧ CreateRevision(M(to)) == to.createRevision Then
   * Put(K, to's id, lease = to's lease)}. The put keeps K's create revision and gives it a new mod
   * revision, which is how the target tells a moved key from an orphan of its own.
   */
  record Transfer(long op, long token, SessionMember to) implements SessionCommand, Gated {
    @Override
    public Input failed(String reason) {
      return new SessionInput.TransferFailed(op, reason);
    }
  }

  /**
   * DeleteLater hands a closed election's failed fenced delete to the session, which retries it
   * after each renewal until etcd answers it or the lease ends (and the key with it).
   */
  record DeleteLater(long token) implements SessionCommand {}

  /**
   * Renewed tells every election that the session's lease is live until {@code deadline};
   * {@code revision} is the store revision the confirming read was served at, which the
   * session's watch must reach (PROTOCOL.md §11, the silent watch).
   */
  record Renewed(long leaseId, long deadline, long renewalSentAt, long revision)
      implements SessionCommand {}

  /** Ended tells every election that the session's lease ended, with the cause. */
  record Ended(long leaseId, Cause cause) implements SessionCommand {}

  /**
   * Unavailable tells every election that the lease's calls have been failing for as long as
   * a single election waits before it reports an outage ({@code Reachability.LASTING} failed
   * calls without progress, or one refusal for a configuration error); {@code reason} is the
   * last failure's. The lease may still be live: the elections keep their roles.
   */
  record Unavailable(String reason) implements SessionCommand {}

  /** Recovered tells every election that the lease made progress (a grant, a confirmed renewal) after Unavailable. */
  record Recovered() implements SessionCommand {}
}
