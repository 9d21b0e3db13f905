package dev.leasehold.it.chaos;

import dev.leasehold.it.Faketime;
import dev.leasehold.it.chaos.History.TargetKind;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

/**
 * SkewCandidateClock is the clock-rate nemesis (issue 27): a candidate JVM whose monotonic clock
 * runs at another rate, the MASTER, cut from the store for longer than its TTL.
 *
 * <p>Inject: a follower slot's JVM is closed and started again under libfaketime ({@link
 * Faketime}) at the rate; the MASTERs before it resign until it is MASTER (with standby leases
 * the key goes to the queue's head, and a restarted candidate queues last); then its links are
 * blackholed. Hold: TTL + 0.2–0.8 s. Recover: the links heal, the skewed candidate finds its term
 * gone (its writes with the old token must be FENCED), its stamps are mapped to the shared clock
 * ({@link HistoryRecorder#mapClock}, fitted to the clock probes this fault sent every {@value
 * #PROBE_EVERY_MILLIS} ms through its life), and it is closed and started again on the real
 * clock.
 *
 * <p>The elector computes its deadline as TTL × (1 − maxDriftRate) − margin on its own clock. A
 * clock slower than that bound makes the cut-off MASTER act past its lease, while etcd expires the
 * lease on its clock and the next candidate is elected: an overlap, which the checker counts as
 * "overlap with a clock beyond bound", not a violation (etcd still fences its writes). Within the
 * bound, and with a fast clock at any rate (it steps down early), an overlap is a violation. Not
 * thread-safe.
 */
final class SkewCandidateClock implements Fault {
  /** MAX_DRIFT_RATE is the candidates' maxDriftRate: they run core's default. */
  static final double MAX_DRIFT_RATE = 0.01;

  private static final long PROBE_EVERY_MILLIS = 50;
  private static final int MAX_RESIGNS = 6;

  private final String name;
  private final double[] rates;
  private ChaosContext.Slot target;
  private String process;
  private double rate;
  private Thread probing;

  /**
   * SkewCandidateClock runs the skewed candidate at one of {@code rates}, drawn by the seed;
   * {@code name} names the fault.
   */
  SkewCandidateClock(String name, double... rates) {
    this.name = name;
    this.rates = rates.clone();
  }

  /** within is the nemesis within the bound: 0.5 % slow or fast, half the default maxDriftRate. */
  static SkewCandidateClock within() {
    return new SkewCandidateClock("candidate-clock-within-bound", 0.995, 1.005);
  }

  /**
   * beyond is the nemesis beyond the bound: a clock at half speed, which keeps a cut-off MASTER
   * acting past its lease.
   */
  static SkewCandidateClock beyond() {
    return new SkewCandidateClock("candidate-clock-beyond-bound", 0.5);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public TargetKind kind() {
    return TargetKind.CANDIDATE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws Exception {
    rate = rates[random.nextInt(rates.length)];
    ChaosContext.Slot master = ctx.masterSlot();
    var followers = ctx.slots().stream().filter(s -> s != master).toList();
    target = followers.get(random.nextInt(followers.size()));
    ctx.close(target);
    ctx.restart(target, Faketime.environment(rate));
    process = target.process();
    probing = startProbes(target);
    boolean leads = becomeMaster(ctx);
    target.links().cut(TcpProxy.Mode.BLACKHOLE);
    ctx.recorder().note(String.format(Locale.ROOT, "%s runs its clock at x%s (%s the bound of ±%s), cut off as %s",
        process, rate, Math.abs(rate - 1) > MAX_DRIFT_RATE ? "beyond" : "within", MAX_DRIFT_RATE,
        leads ? "MASTER" : "a follower (it did not become MASTER)"));
    return process;
  }

  // Resigns the MASTERs ahead of the skewed candidate until it leads; tells whether it does.
  private boolean becomeMaster(ChaosContext ctx) throws Exception {
    if (ctx.store() instanceof EtcdStore etcd) {
      // A handover goes to the queue's head: resigning before it is in the queue only passes the
      // term between the others (a slow clock makes it enlist late).
      long end = System.nanoTime() + ctx.steadyTimeout().toNanos();
      while (!etcd.queue(ctx.electionKey()).contains(process) && System.nanoTime() < end) {
        Thread.sleep(50);
      }
    }
    for (int i = 0; i < MAX_RESIGNS; i++) {
      ChaosContext.Slot m = ctx.masterSlot();
      if (m == target) {
        return true;
      }
      String before = m.process();
      m.candidate().send("resign");
      long end = System.nanoTime() + ctx.steadyTimeout().toNanos();
      Optional<String> now = ctx.recorder().master();
      while (System.nanoTime() < end && (now.isEmpty() || now.get().equals(before))) {
        Thread.sleep(10);
        now = ctx.recorder().master();
      }
    }
    return ctx.masterSlot() == target;
  }

  private Thread startProbes(ChaosContext.Slot slot) {
    var candidate = slot.candidate();
    Thread t = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted() && candidate.isAlive()) {
        try {
          candidate.send("clock " + System.nanoTime());
          Thread.sleep(PROBE_EVERY_MILLIS);
        } catch (IOException | InterruptedException e) {
          return;
        }
      }
    }, "clock-probe-" + slot.process());
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    // The lease expires at most a TTL after the cut (its last renewal came before), and the next
    // candidate is elected right after: past that, a MASTER that has not stepped down overlaps.
    return Duration.ofMillis(ctx.ttlMillis() + Faults.between(random, 200, 800));
  }

  @Override
  public void recover(ChaosContext ctx) throws Exception {
    target.links().heal();
    // Let it find its term gone on the real store (and have its stale writes fenced) before it
    // is replaced; a clock at half speed may take a while to get there.
    long end = System.nanoTime() + 2 * ctx.ttlMillis() * 1_000_000L;
    while (ctx.recorder().masters().containsKey(process) && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    probing.interrupt();
    probing.join(1000);
    boolean beyondBound = Math.abs(rate - 1) > MAX_DRIFT_RATE;
    ClockMap map = ctx.recorder().mapClock(process, rate, beyondBound);
    if (Math.abs(map.rate() - rate) > 0.001 * rate) {
      throw new IllegalStateException(String.format(Locale.ROOT,
          "%s's clock ran at x%.5f, not at the x%s asked: libfaketime is not in effect", process, map.rate(), rate));
    }
    ctx.close(target);
    ctx.restart(target);
  }
}
