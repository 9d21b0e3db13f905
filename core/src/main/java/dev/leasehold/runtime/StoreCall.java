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
  /** failed is the input that reports this call as failed (or timed out) for {@code reason}. */
  Input failed(String reason);

  /**
   * timeoutNanos bounds this call, given the configured RPC timeout; a call that blocks on
   * purpose (SQL's GET_LOCK wait) adds its wait to it.
   */
  default long timeoutNanos(long rpcTimeoutNanos) {
    return rpcTimeoutNanos;
  }
}
