package dev.leasehold.runtime;

import dev.leasehold.Guarantee;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * StorePort is the narrow seam between the runtime and one store: the runtime hands it the
 * machine's store commands, and it hands back inputs. An adapter maps commands to its store's
 * calls and replies to inputs, and owns nothing else: timeouts, retries, the close sequence
 * and events are the runtime's.
 *
 * <p>Thread safety: {@link #open()}, {@link #call}, {@link #send}, {@link #release} and
 * {@link #close()} are called from the runtime's event loop (open and close may come from
 * the thread calling start() or close()), never concurrently; replies may complete on any
 * thread and must never block it.
 */
public interface StorePort {
  /**
   * guarantee is how far the mutual exclusion of this store's terms reaches.
   *
   * @return the guarantee of this store's terms
   */
  Guarantee guarantee();

  /**
   * backend names the store for health and metrics: {@code "etcd"}, {@code "jdbc"} or
   * {@code "local"}; a port of another store names its own (by default, from the guarantee).
   *
   * @return the backend's name
   */
  default String backend() {
    return switch (guarantee()) {
      case DISTRIBUTED -> "etcd";
      case SINGLE_DATABASE -> "jdbc";
      case IN_PROCESS -> "local";
    };
  }

  /** open gets the port ready (connects lazily, creates clients); called once, at start. */
  void open();

  /**
   * call sends one request; the stage completes with the input that reports its reply,
   * including replies the store refused (a failure input of the call's own kind). An
   * exceptional completion is reported as {@link StoreCall#failed} with {@link #describe}.
   *
   * @param call the request
   * @return a stage that completes with the reply's input
   */
  CompletionStage<? extends Input> call(StoreCall call);

  /**
   * send carries out a command without a single reply (a watch); inputs go to {@code inbox}.
   *
   * @param command the command, such as a watch
   * @param inbox where the command's inputs are delivered
   */
  void send(Command command, Consumer<Input> inbox);

  /**
   * release gives the lease back once; the stage completes normally once the lease is gone.
   *
   * @param leaseId the lease to give back
   * @return a stage that completes once the lease is gone
   */
  CompletionStage<?> release(long leaseId);

  /**
   * describe turns a failure into the reason reported in logs and inputs.
   *
   * @param failure the exception a call completed with
   * @return the reason, short enough for a log line and an event
   */
  String describe(Throwable failure);

  /** close ends watches and frees what {@link #open()} made; never throws. */
  void close();
}
