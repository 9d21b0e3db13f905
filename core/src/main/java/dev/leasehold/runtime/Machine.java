package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Participant;
import java.util.List;

/**
 * Machine is a backend's election protocol as a pure state machine: it takes an input and
 * the monotonic time, and returns the commands its runtime must carry out. It does no I/O,
 * reads no clock and starts no thread.
 *
 * <p>Not thread-safe: the runtime's event loop owns an instance.
 */
public interface Machine {
  /** step applies one input at monotonic time {@code now} and returns commands, in order. */
  List<Command> step(Input input, long now);

  /** role is the current role. */
  ElectorState role();

  /** leader is the leader last seen (this instance when MASTER), or null. */
  LeaderInfo leader();

  /** deadline is the MASTER's local deadline (monotonic nanoseconds); meaningless otherwise. */
  long deadline();

  /** fencingToken is the MASTER's fencing token, or 0 when not MASTER. */
  long fencingToken();

  /**
   * queueRead is the store call that lists the election's queue, for {@code participants()},
   * or null when the backend has none; it is sent outside the machine's own calls and its
   * reply goes to {@link #queueOf}, never to {@link #step}.
   */
  default StoreCall queueRead() {
    return null;
  }

  /** queueOf takes the queue, head first, out of the reply to {@link #queueRead}; it reads no state (it runs on the dispatcher). */
  default List<Participant> queueOf(Input reply) {
    return List.of();
  }

  /** leaseId is the lease the MASTER's term rides on (0 when none). */
  long leaseId();

  /**
   * renewalSentAt is the send time (monotonic nanoseconds) of the last confirmed renewal of the
   * lease this instance holds, the one its deadline counts from (a grant, or a SQL take, counts
   * as the lease's first renewal), or {@link Long#MIN_VALUE} when it holds none. It changes
   * only when a renewal is confirmed; the runtime reports the round trip then.
   */
  default long renewalSentAt() {
    return Long.MIN_VALUE;
  }

  /**
   * termDetail is the store's own identity of the MASTER's term, which its {@code Leadership}
   * keeps for the store's guard (SQL: the row and its holder token; see {@link Terms}); null
   * when the store needs nothing beyond the fencing token.
   */
  default Object termDetail() {
    return null;
  }
}
