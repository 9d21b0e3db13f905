package dev.leasehold.it.chaos;

import dev.leasehold.it.CandidateProcess;
import dev.leasehold.it.SpreadChaosMember;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

/**
 * SpreadFleet is the spreading run's member JVMs ({@link SpreadChaosMember}): each member is a
 * slot ({@code m0}, {@code m1}, ...; the session's candidate id, which a returning member reuses)
 * in one incarnation (its process id {@code m1.2}, which names it in the history). It keeps warm
 * spare JVMs ({@link #warmSpares}) and makes one a member on a join, kills members, closes them,
 * and tells which slots are live.
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
  private final Map<String, Member> live = new LinkedHashMap<>();
  private final List<Member> closing = new ArrayList<>();
  private final Deque<Member> spares = new ArrayDeque<>();
  private int nextSlot;
  private int nextSpare;

  /** Member is a member JVM and the process id its lines are recorded under (its spare name until it joins). */
  private static final class Member {
    private final CandidateProcess jvm;
    // Set by the runner's thread at the join, read by the JVM's reader thread for every line.
    private final AtomicReference<String> process;

    Member(CandidateProcess jvm, AtomicReference<String> process) {
      this.jvm = jvm;
      this.process = process;
    }
  }

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

  /**
   * warmSpares starts spare JVMs until {@code count} are starting or waiting, and returns at once;
   * a spare loads what a member runs and waits to be told to join ({@link #join}).
   */
  void warmSpares(int count) throws IOException {
    while (spares.size() < count) {
      String name = "spare-" + nextSpare++;
      List<String> args = List.of(
          "--endpoints=" + String.join(",", endpoints),
          "--prefix=" + prefix,
          "--counter-prefix=" + counterPrefix,
          "--shards=" + config.shards(),
          "--ttl-seconds=" + config.base().ttlSeconds(),
          "--poll-millis=" + config.base().pollMillis(),
          "--think-millis=" + config.base().thinkMillis(),
          "--rpc-timeout-millis=" + config.base().rpcTimeoutMillis());
      AtomicReference<String> process = new AtomicReference<>(name);
      CandidateProcess jvm = CandidateProcess.launch(name, SpreadChaosMember.class, args,
          logDir.resolve(name + ".log"), line -> recorder.accept(process.get(), line), Map.of());
      spares.add(new Member(jvm, process));
    }
  }

  /** awaitSpares waits until {@code count} spares are WARM. */
  void awaitSpares(int count, Duration timeout) throws InterruptedException {
    int n = 0;
    for (Member m : spares) {
      if (n++ == count) {
        return;
      }
      m.jvm.awaitLine("WARM"::equals, timeout);
    }
  }

  /**
   * join makes the oldest spare a new incarnation of {@code slot}'s member, and returns at once
   * (it is not READY yet); its id is the slot, its process id the incarnation's.
   */
  String join(String slot) throws IOException {
    if (live.containsKey(slot)) {
      throw new IllegalStateException(slot + " runs already");
    }
    Member m = spares.poll();
    if (m == null) {
      throw new IllegalStateException("no spare JVM to join as " + slot);
    }
    int n = incarnations.merge(slot, 1, Integer::sum);
    String process = slot + "." + n;
    recorder.fleet().note("joining " + m.process.get() + " as " + process);
    // Every line after the join command is this incarnation's.
    m.process.set(process);
    m.jvm.send("join " + slot + " " + process);
    live.put(slot, m);
    return process;
  }

  /** awaitReady waits until {@code slot}'s member printed READY and returns when the line arrived. */
  long awaitReady(String slot, Duration timeout) throws InterruptedException {
    live.get(slot).jvm.awaitLine(l -> l.startsWith("READY"), timeout);
    return System.nanoTime();
  }

  /** kill SIGKILLs {@code slot}'s member and ends its terms in the history when it is gone; returns that moment. */
  long kill(String slot) throws IOException, InterruptedException {
    Member m = live.remove(slot);
    long gone = m.jvm.kill();
    recorder.killed(m.process.get(), gone);
    return gone;
  }

  /** close tells {@code slot}'s member to close (its session resigns and revokes) and returns at once. */
  long close(String slot) throws IOException {
    Member m = live.remove(slot);
    long at = System.nanoTime();
    m.jvm.send("close");
    closing.add(m);
    return at;
  }

  /**
   * awaitClosed waits for every member told to close to print CLOSED and exit (SIGKILL after the
   * timeout), and ends any term it still held in the history at that moment.
   */
  void awaitClosed(Duration timeout) throws IOException, InterruptedException {
    for (Member m : closing) {
      try {
        m.jvm.awaitLine("CLOSED"::equals, timeout);
      } catch (IllegalStateException e) {
        recorder.fleet().note(m.process.get() + " did not close: " + e.getMessage());
      }
      long gone = m.jvm.awaitExit(Duration.ofSeconds(5)) ? System.nanoTime() : m.jvm.kill();
      recorder.killed(m.process.get(), gone);
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
    live.values().forEach(m -> m.jvm.close());
    closing.forEach(m -> m.jvm.close());
    spares.forEach(m -> m.jvm.close());
    live.clear();
    closing.clear();
    spares.clear();
  }
}
