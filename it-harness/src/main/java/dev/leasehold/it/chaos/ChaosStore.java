package dev.leasehold.it.chaos;

import java.util.List;

/**
 * ChaosStore is the store a chaos run elects on (an etcd cluster, a mariadbd), as the runner
 * and the faults see it: where the candidates' proxies lead, how a candidate is told to reach
 * it, whether it is healthy, how to heal it after a failed iteration, and what it recorded.
 *
 * <p>Implementations start their processes in a static factory and end them in {@link #close()},
 * which is idempotent and never throws. Used from the runner's thread; not thread-safe unless
 * an implementation says so.
 */
public interface ChaosStore extends AutoCloseable {
  /** clientPorts are the ports on 127.0.0.1 that each candidate's {@link ClientProxies} front, one proxy per port. */
  List<Integer> clientPorts();

  /**
   * candidateArgs are the {@code CandidateMain} arguments that point a candidate at the store
   * through {@code links}, with the store-specific workload options of {@code config}.
   */
  List<String> candidateArgs(ChaosConfig config, ClientProxies links);

  /** endpoints is the {@code --endpoints} list of a candidate behind {@code links} (empty when unused). */
  List<String> endpoints(ClientProxies links);

  /** unsteady says why the store is not healthy now (down, paused, partitioned, no leader), or null when it is. */
  String unsteady();

  /** healAll resumes, restarts and reconnects whatever a failed iteration may have left broken; best effort. */
  void healAll();

  /** prepare creates what the run's counter workload needs before the first candidate starts (tables, triggers). */
  default void prepare(String electionKey, String counterKey) throws Exception {}

  /**
   * monitor starts whatever measures the store's own slowness into {@code recorder} as stalls of
   * "store" (at least {@code thresholdNanos} each), and returns what stops it; none by default.
   */
  default AutoCloseable monitor(HistoryRecorder recorder, long thresholdNanos) {
    return () -> { };
  }

  /** read returns what the store itself recorded of the election and the counter, once every candidate is closed. */
  StoreHistory read(String electionKey, String counterKey) throws Exception;

  /** describe is the store's settings for the summary line, such as its election timeout. */
  String describe(ChaosConfig config);

  /** params are the checker's timing settings for this store. */
  History.Params params(ChaosConfig config);

  /** close ends every process and proxy the store started; idempotent, never throws. */
  @Override
  void close();
}
