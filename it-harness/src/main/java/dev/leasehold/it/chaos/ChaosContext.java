package dev.leasehold.it.chaos;

import dev.leasehold.it.CandidateProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ChaosContext is what a {@link Fault} works on: the store ({@link ChaosStore}: the etcd
 * cluster and its peer proxies, or a mariadbd), the candidate slots (each a candidate JVM
 * behind its own client proxies), and the recorder.
 *
 * <p>Used from the runner's thread only; not thread-safe.
 */
public final class ChaosContext {
  private final ChaosConfig config;
  private final ChaosStore store;
  private final HistoryRecorder recorder;
  private final List<Slot> slots = new ArrayList<>();
  private final String electionKey;
  private final String counterKey;
  private final Path logDir;

  /**
   * Slot is one candidate position: its client proxies (kept across restarts) and its current
   * JVM, whose process id is {@code <slot>.<incarnation>}.
   */
  public static final class Slot {
    private final String name;
    private final ClientProxies links;
    private CandidateProcess candidate;
    private int incarnation;

    Slot(String name, ClientProxies links) {
      this.name = name;
      this.links = links;
    }

    /** process is the current incarnation's id, also its candidate id. */
    public String process() {
      return name + "." + incarnation;
    }

    /** links are this slot's proxies to the store. */
    public ClientProxies links() {
      return links;
    }

    /** candidate is the current JVM. */
    public CandidateProcess candidate() {
      return candidate;
    }
  }

  ChaosContext(ChaosConfig config, ChaosStore store, HistoryRecorder recorder, String electionKey,
      String counterKey, Path logDir) {
    this.config = config;
    this.store = store;
    this.recorder = recorder;
    this.electionKey = electionKey;
    this.counterKey = counterKey;
    this.logDir = logDir;
  }

  /** store is the run's store. */
  public ChaosStore store() {
    return store;
  }

  /** store returns the run's store as the type a store-specific fault needs; throws if it is another store. */
  public <T extends ChaosStore> T store(Class<T> type) {
    if (!type.isInstance(store)) {
      throw new IllegalStateException("this fault needs a " + type.getSimpleName() + ", but the run's store is "
          + store.getClass().getSimpleName());
    }
    return type.cast(store);
  }

  /** recorder collects the history. */
  public HistoryRecorder recorder() {
    return recorder;
  }

  /** ttlMillis is the candidates' lease TTL. */
  public long ttlMillis() {
    return config.ttlSeconds() * 1000L;
  }

  /** electionTimeoutMillis is etcd's election timeout (on MariaDB, the nominal recovery time; see ChaosConfig). */
  public long electionTimeoutMillis() {
    return config.electionTimeoutMillis();
  }

  /** steadyTimeout bounds the harness's waits for a steady system; generous, the checker holds the strict bounds. */
  public Duration steadyTimeout() {
    return Duration.ofSeconds(30);
  }

  /** slots are the candidate positions. */
  public List<Slot> slots() {
    return slots;
  }

  String electionKey() {
    return electionKey;
  }

  String counterKey() {
    return counterKey;
  }

  /**
   * masterSlot is the slot of the single MASTER candidate, waiting up to {@link #steadyTimeout()}
   * for one: a MASTER may lose its term between the steady check and the injection (the checker
   * judges that loss), and the fault then hits the next one. Throws when there is none by then.
   */
  public Slot masterSlot() throws InterruptedException {
    Optional<String> m = recorder.master();
    if (m.isEmpty()) {
      recorder.note("no single MASTER at injection (" + recorder.masters() + "); waiting for one");
      long end = System.nanoTime() + steadyTimeout().toNanos();
      while (m.isEmpty() && System.nanoTime() < end) {
        Thread.sleep(20);
        m = recorder.master();
      }
    }
    if (m.isEmpty()) {
      throw new IllegalStateException("no single MASTER: " + recorder.masters());
    }
    for (Slot s : slots) {
      if (s.process().equals(m.get())) {
        return s;
      }
    }
    throw new IllegalStateException("MASTER " + m.get() + " is no current candidate");
  }

  /** start launches a new incarnation in the slot and waits for it to be READY. */
  void start(Slot slot) throws IOException, InterruptedException {
    start(slot, Map.of());
  }

  private void start(Slot slot, Map<String, String> environment) throws IOException, InterruptedException {
    slot.incarnation++;
    String process = slot.process();
    recorder.note("starting " + process);
    List<String> args = new ArrayList<>(List.of(
        "--workload=counter",
        "--counter-key=" + counterKey,
        "--poll-millis=" + config.pollMillis(),
        "--think-millis=" + config.thinkMillis(),
        "--stall-report=true"));
    args.addAll(store.candidateArgs(config, slot.links));
    if (store instanceof EtcdStore) {
      args.add("--health-file=" + healthFile(slot));
    }
    slot.candidate =
        CandidateProcess.start(
            process,
            store.endpoints(slot.links),
            electionKey,
            config.ttlSeconds(),
            logDir.resolve(process + ".log"),
            recorder.listener(process),
            environment,
            args.toArray(String[]::new));
    slot.candidate.awaitLine(l -> l.startsWith("READY"), Duration.ofSeconds(60));
  }

  Slot addSlot(String name, ClientProxies links) {
    Slot s = new Slot(name, links);
    slots.add(s);
    return s;
  }

  /**
   * healthFile is the file whose existence makes the slot's candidate unhealthy (etcd runs;
   * {@link HealthFlapping}), the same for every incarnation.
   */
  public Path healthFile(Slot slot) {
    return logDir.resolve(slot.name + ".unhealthy");
  }

  /** kill SIGKILLs the slot's JVM and ends its term in the history at the moment it is gone. */
  public void kill(Slot slot) throws IOException, InterruptedException {
    long gone = slot.candidate.kill();
    recorder.killed(slot.process(), gone);
  }

  /** restart starts a new incarnation in a slot whose JVM was killed. */
  public void restart(Slot slot) throws IOException, InterruptedException {
    start(slot);
  }

  /**
   * restart starts a new incarnation in a slot whose JVM was killed or closed, with {@code
   * environment} added to its environment (libfaketime's, to run its clocks at another rate).
   */
  public void restart(Slot slot, Map<String, String> environment) throws IOException, InterruptedException {
    start(slot, environment);
  }

  /**
   * close closes the slot's JVM as a user would (its elector resigns a term it holds and revokes
   * its lease) and waits for it to exit (SIGKILL after 5 s); a new incarnation may then be
   * started with {@link #restart}.
   */
  public void close(Slot slot) throws IOException, InterruptedException {
    slot.candidate.send("close");
    slot.candidate.awaitLine("CLOSED"::equals, steadyTimeout());
    if (!slot.candidate.awaitExit(Duration.ofSeconds(5))) {
      // Closed is closed: its lease is revoked and its elector stopped; a lingering JVM only costs time.
      slot.candidate.kill();
    }
  }

  /**
   * awaitSteady waits until the store is healthy ({@link ChaosStore#unsteady()}: on etcd, every
   * member runs unpaused and healthy with a leader), no link is cut, every candidate JVM runs,
   * and exactly one candidate is MASTER.
   */
  public void awaitSteady(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    String why = "";
    while (System.nanoTime() < end) {
      why = unsteady();
      if (why == null) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("system not steady within " + timeout + ": " + why);
  }

  private String unsteady() {
    for (Slot s : slots) {
      if (s.candidate == null || !s.candidate.isAlive()) {
        return s.process() + " not running";
      }
      if (s.links.mode() != TcpProxy.Mode.PASS) {
        return s.process() + " cut";
      }
    }
    Map<String, Long> masters = recorder.masters();
    if (masters.size() != 1) {
      return "MASTERs: " + masters;
    }
    return store.unsteady();
  }

  /** reportLine is the one-line report of a fault window. */
  public static String reportLine(History.FaultWindow f, long runStart) {
    return String.format(java.util.Locale.ROOT, "fault #%d %-26s target=%-14s start=+%.3fs end=+%.3fs held=%dms",
        f.iteration(), f.fault(), f.target(), (f.inject() - runStart) / 1e9, (f.recover() - runStart) / 1e9,
        (f.recover() - f.inject()) / 1_000_000);
  }
}
