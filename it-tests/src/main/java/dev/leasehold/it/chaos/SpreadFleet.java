package dev.leasehold.it.chaos;

import dev.leasehold.it.CandidateProcess;
import dev.leasehold.it.SpreadChaosMember;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * SpreadFleet is the spreading run's member JVMs ({@link SpreadChaosMember}): each member is a
 * slot ({@code m0}, {@code m1}, ...; the session's candidate id, which a returning member reuses)
 * in one incarnation (its process id {@code m1.2}, which names it in the history). It starts
 * members, kills them, closes them, and tells which slots are live.
 *
 * <p>Used from the runner's thread only; not thread-safe.
 */
final class SpreadFleet implements AutoCloseable {
  private final SpreadChaosConfig config;
  private final List<String> endpoints;
  private final String prefix;
  private final String counterPrefix;
  private final FleetRecorder recorder;
  private final Path logDir;
  private final Map<String, Integer> incarnations = new HashMap<>();
  private final Map<String, CandidateProcess> live = new LinkedHashMap<>();
  private final List<CandidateProcess> closing = new ArrayList<>();
  private int nextSlot;

  SpreadFleet(SpreadChaosConfig config, List<String> endpoints, String prefix, String counterPrefix,
      FleetRecorder recorder, Path logDir) {
    this.config = config;
    this.endpoints = endpoints;
    this.prefix = prefix;
    this.counterPrefix = counterPrefix;
    this.recorder = recorder;
    this.logDir = logDir;
  }

  /** newSlot is a slot name never used in this run. */
  String newSlot() {
    return "m" + nextSlot++;
  }

  /** process is the process id of the slot's current (or last) incarnation. */
  String process(String slot) {
    return slot + "." + incarnations.getOrDefault(slot, 0);
  }

  /** liveSlots are the slots whose member runs (not killed, not told to close), in name order. */
  List<String> liveSlots() {
    return new ArrayList<>(new TreeSet<>(live.keySet()));
  }

  /** liveProcesses are the process ids of the live members. */
  Set<String> liveProcesses() {
    Set<String> out = new TreeSet<>();
    live.keySet().forEach(s -> out.add(process(s)));
    return out;
  }

  /** join starts a new incarnation of {@code slot}'s member JVM and returns at once (it is not READY yet). */
  String join(String slot) throws IOException {
    if (live.containsKey(slot)) {
      throw new IllegalStateException(slot + " runs already");
    }
    int n = incarnations.merge(slot, 1, Integer::sum);
    String process = slot + "." + n;
    recorder.fleet().note("starting " + process);
    List<String> args = List.of(
        "--endpoints=" + String.join(",", endpoints),
        "--prefix=" + prefix,
        "--counter-prefix=" + counterPrefix,
        "--candidate-id=" + slot,
        "--process=" + process,
        "--shards=" + config.shards(),
        "--ttl-seconds=" + config.base().ttlSeconds(),
        "--poll-millis=" + config.base().pollMillis(),
        "--think-millis=" + config.base().thinkMillis(),
        "--rpc-timeout-millis=" + config.base().rpcTimeoutMillis());
    live.put(slot, CandidateProcess.launch(process, SpreadChaosMember.class, args, logDir.resolve(process + ".log"),
        recorder.listener(process), Map.of()));
    return process;
  }

  /** awaitReady waits until {@code slot}'s member printed READY and returns when the line arrived. */
  long awaitReady(String slot, Duration timeout) throws InterruptedException {
    live.get(slot).awaitLine(l -> l.startsWith("READY"), timeout);
    return System.nanoTime();
  }

  /** kill SIGKILLs {@code slot}'s member and ends its terms in the history when it is gone; returns that moment. */
  long kill(String slot) throws IOException, InterruptedException {
    CandidateProcess p = live.remove(slot);
    long gone = p.kill();
    recorder.killed(p.id(), gone);
    return gone;
  }

  /** close tells {@code slot}'s member to close (its session resigns and revokes) and returns at once. */
  long close(String slot) throws IOException {
    CandidateProcess p = live.remove(slot);
    long at = System.nanoTime();
    p.send("close");
    closing.add(p);
    return at;
  }

  /**
   * awaitClosed waits for every member told to close to print CLOSED and exit (SIGKILL after the
   * timeout), and ends any term it still held in the history at that moment.
   */
  void awaitClosed(Duration timeout) throws IOException, InterruptedException {
    for (CandidateProcess p : closing) {
      try {
        p.awaitLine("CLOSED"::equals, timeout);
      } catch (IllegalStateException e) {
        recorder.fleet().note(p.id() + " did not close: " + e.getMessage());
      }
      long gone = p.awaitExit(Duration.ofSeconds(5)) ? System.nanoTime() : p.kill();
      recorder.killed(p.id(), gone);
    }
    closing.clear();
  }

  /** closeAll closes every live member and waits for them. */
  void closeAll(Duration timeout) throws IOException, InterruptedException {
    for (String slot : liveSlots()) {
      close(slot);
    }
    awaitClosed(timeout);
  }

  /** close kills whatever still runs; idempotent. */
  @Override
  public void close() {
    live.values().forEach(CandidateProcess::close);
    closing.forEach(CandidateProcess::close);
    live.clear();
    closing.clear();
  }
}
