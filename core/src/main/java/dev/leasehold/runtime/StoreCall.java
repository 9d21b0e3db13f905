package dev.leasehold.runtime;

/**
 * StoreCall is a command the store answers with exactly one input. The runtime bounds it by
 * the RPC timeout and, if no reply came in time or the port failed it, hands the machine
 * {@link #failed(String)} instead.
 */
public interface StoreCall extends Command {
  /** failed is the input that reports this call as failed (or timed out) for {@code reason}. */
  Input failed(String reason);
}
