package dev.leasehold.runtime;

/**
 * StoreCall is a command the store answers with exactly one input. The runtime bounds it by
 * its timeout ({@link #timeoutNanos}, the RPC timeout unless the call waits on purpose) and,
 * if no reply came in time or the port failed it, hands the machine {@link #failed(String)}
 * instead.
 *
 * <p>Like every {@link Command}, an implementation is an immutable record, safe to pass between
 * threads.
 */
public interface StoreCall extends Command {
  /**
   * failed is the input that reports this call as failed (or timed out) for {@code reason}.
   *
   * @param reason why the call failed, as the adapter describes it
   * @return the failure input of this call's kind, with its operation id
   */
  Input failed(String reason);

  /**
   * timeoutNanos bounds this call, given the configured RPC timeout; a call that blocks on
   * purpose (SQL's GET_LOCK wait) adds its wait to it.
   *
   * @param rpcTimeoutNanos the configured RPC timeout, in nanoseconds
   * @return this call's timeout in nanoseconds; the RPC timeout unless the call waits on purpose
   */
  default long timeoutNanos(long rpcTimeoutNanos) {
    return rpcTimeoutNanos;
  }
}
