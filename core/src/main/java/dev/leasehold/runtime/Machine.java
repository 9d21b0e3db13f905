package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Participant;
import java.util.List;

/**
 * Machine is a backend's election protocol as a pure state machine: it takes an input and
 * the monotonic time, and returns the commands its runtime must carry out. It does no I/O,
 * reads no clock and starts no thread. A machine that publishes changes its role and publishes
 * only through its {@link Roles}; a term it begins reaches the runtime once, as the {@link Term}
 * of the {@code ELECTED} {@link Command.Publish}, and after each step the runtime reads only the
 * role, the leader, the deadline and the renewal's send time below.
 *
 * <p>Not thread-safe: the runtime's event loop owns an instance.
 */
public interface Machine {
  /**
   * step applies one input at monotonic time {@code now} and returns commands, in order.
   *
   * @param input the input: a store reply, a timer or a user request
   * @param now the monotonic time of the step, in nanoseconds
   * @return the commands the step produced, in the order they must be carried out
   */
  List<Command> step(Input input, long now);

  /**
   * role is the current role.
   *
   * @return the role after the last step
   */
  ElectorState role();

  /**
   * leader is the leader last seen, or null. While MASTER it is this instance, with the current
   * term's fencing token: a token other than the {@link Term}'s means that term is over.
   *
   * @return the leader, or null when none is known
   */
  LeaderInfo leader();

  /**
   * deadline is the MASTER's local deadline (monotonic nanoseconds); meaningless otherwise.
   *
   * @return the deadline in monotonic nanoseconds
   */
  long deadline();

  /**
   * queueRead is the store call that lists the election's queue, for {@code participants()},
   * or null when the backend has none; it is sent outside the machine's own calls and its
   * reply goes to {@link #queueOf}, never to {@link #step}.
   *
   * @return the call, or null when the backend keeps no queue
   */
  default StoreCall queueRead() {
    return null;
  }

  /**
   * queueOf takes the queue, head first, out of the reply to {@link #queueRead}; it reads no state
   * (it runs on the dispatcher).
   *
   * @param reply the reply to {@link #queueRead}
   * @return the participants, head first
   */
  default List<Participant> queueOf(Input reply) {
    return List.of();
  }

  /**
   * transferUnsupported says why this machine cannot hand a term to a named candidate at all, or
   * null when it takes {@link Input.Transfer} (and answers each with a {@link
   * Command.TransferOutcome}). It depends on the machine's kind and configuration only, so any
   * thread may ask.
   *
   * @return the reason, or null when the machine transfers
   */
  default String transferUnsupported() {
    return "its protocol keeps no queue of live candidates to hand a term to";
  }

  /**
   * renewalSentAt is the send time (monotonic nanoseconds) of the last confirmed renewal of the
   * lease this instance holds, the one its deadline counts from (a grant, or a SQL take, counts
   * as the lease's first renewal), or {@link Long#MIN_VALUE} when it holds none. It changes
   * only when a renewal is confirmed; the runtime reports the round trip then.
   *
   * @return the send time in monotonic nanoseconds, or {@link Long#MIN_VALUE}
   */
  default long renewalSentAt() {
    return Long.MIN_VALUE;
  }
}
