package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Faults are the failures of issue 4: etcd members killed, paused or cut off from their peers;
 * candidates cut from the store, killed, or paused past their TTL. {@link #all()} lists one of
 * each for etcd; {@link #candidateFaults()} are those that work on any store ({@link
 * MariaDbFaults} adds mariadbd's own). Stateless; each fault instance is not thread-safe.
 */
public final class Faults {
  private Faults() {}

  /** all returns a fresh instance of every fault, in report order. */
  public static List<Fault> all() {
    return List.of(
        new KillEtcdMember(true),
        new KillEtcdMember(false),
        new PauseEtcdLeader(),
        new IsolateEtcdLeader(TcpProxy.Mode.BLACKHOLE),
        new IsolateEtcdLeader(TcpProxy.Mode.RESET),
        new CutCandidate(TcpProxy.Mode.BLACKHOLE),
        new CutCandidate(TcpProxy.Mode.RESET),
        new KillCandidate(),
        new PauseCandidate(),
        new ResignCandidate(),
        new CompactDefragEtcd(),
        new RestartEtcdCluster(),
        new IsolateEtcdFollower(),
        new TransferToKilledTarget(),
        new HealthFlapping(),
        // A follower killed while the leader is cut off: one member of three left, no quorum.
        new ComposedFault(new KillEtcdMember(false), new IsolateEtcdLeader(TcpProxy.Mode.BLACKHOLE), false),
        new ComposedFault(new PauseCandidate(), new IsolateEtcdLeader(TcpProxy.Mode.BLACKHOLE), true),
        new ReplaceEtcdMember(ReplaceEtcdMember.Target.RANDOM),
        new ReplaceEtcdMember(ReplaceEtcdMember.Target.CLIENTS),
        new ReplaceEtcdMember(ReplaceEtcdMember.Target.LEADER),
        // The cut-off leader removed through the other two, which keep a quorum; the new member
        // joins them before the partition heals.
        new ComposedFault(new IsolateEtcdLeader(TcpProxy.Mode.BLACKHOLE),
            new ReplaceEtcdMember(ReplaceEtcdMember.Target.ISOLATED), true),
        SkewCandidateClock.within(),
        SkewCandidateClock.beyond());
  }

  /**
   * bounded returns the faults of the normal suite's bounded run: {@link #all()} but two, which
   * the suite's time budget leaves to long runs and {@code -Dchaos.faults}: {@code
   * etcd-replace-member-random}, whose draw is the leader or a follower, as the other two
   * replacements are, and {@code candidate-clock-beyond-bound}, whose verdict (an overlap counted
   * apart) {@code HistoryCheckerTest} covers.
   */
  public static List<Fault> bounded() {
    List<String> longRunsOnly = List.of("etcd-replace-member-random", "candidate-clock-beyond-bound");
    return all().stream().filter(f -> !longRunsOnly.contains(f.name())).toList();
  }

  /** candidateFaults returns a fresh instance of every fault that hits one candidate, on any store. */
  public static List<Fault> candidateFaults() {
    return List.of(
        new CutCandidate(TcpProxy.Mode.BLACKHOLE),
        new CutCandidate(TcpProxy.Mode.RESET),
        new KillCandidate(),
        new PauseCandidate());
  }

  /** named returns the etcd faults whose names are listed (comma separated), or all for null/blank/"all". */
  public static List<Fault> named(String names) {
    return named(all(), names);
  }

  /**
   * named returns those of {@code known} whose names are listed (comma separated), or all of
   * them for null/blank/"all".
   *
   * @throws IllegalArgumentException naming the unknown fault and the known ones
   */
  public static List<Fault> named(List<Fault> known, String names) {
    if (names == null || names.isBlank() || names.equals("all")) {
      return known;
    }
    List<String> wanted = List.of(names.split(","));
    List<Fault> out = known.stream().filter(f -> wanted.contains(f.name())).toList();
    if (out.size() != wanted.size()) {
      throw new IllegalArgumentException("chaos.faults has an unknown fault in \"" + names + "\"; known: "
          + known.stream().map(Fault::name).toList());
    }
    return out;
  }

  static long between(Random r, long lo, long hi) {
    return lo + (long) (r.nextDouble() * (hi - lo));
  }

  /** SIGKILL the etcd leader member (or a follower), then restart it with its data. */
  static final class KillEtcdMember implements Fault {
    private final boolean leader;
    private EtcdMember target;

    KillEtcdMember(boolean leader) {
      this.leader = leader;
    }

    @Override
    public String name() {
      return leader ? "etcd-kill-leader" : "etcd-kill-follower";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.STORE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) {
      EtcdMember l = ctx.store(EtcdStore.class).leader();
      if (leader) {
        target = l;
      } else {
        List<EtcdMember> followers = ctx.store(EtcdStore.class).cluster().members().stream().filter(m -> m != l).toList();
        target = followers.get(random.nextInt(followers.size()));
      }
      target.kill();
      return target.name();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      long e = ctx.electionTimeoutMillis();
      return Duration.ofMillis(between(random, 2 * e, 4 * e));
    }

    @Override
    public void recover(ChaosContext ctx) {
      target.start();
    }
  }

  /** SIGSTOP the etcd leader member for twice the election timeout, then SIGCONT. */
  static final class PauseEtcdLeader implements Fault {
    private EtcdMember target;

    @Override
    public String name() {
      return "etcd-pause-leader";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.STORE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) {
      target = ctx.store(EtcdStore.class).leader();
      target.pause();
      return target.name();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(2L * ctx.electionTimeoutMillis());
    }

    @Override
    public void recover(ChaosContext ctx) {
      target.resume();
    }
  }

  /**
   * Cut the etcd leader member off from its peers (both ways) while its clients still reach it:
   * etcd issue 15247, where an isolated leader keeps acking keep-alives until it notices.
   */
  static final class IsolateEtcdLeader implements Fault {
    private final TcpProxy.Mode mode;

    IsolateEtcdLeader(TcpProxy.Mode mode) {
      this.mode = mode;
    }

    @Override
    public String name() {
      return "etcd-isolate-leader-" + mode.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public TargetKind kind() {
      return TargetKind.STORE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) {
      EtcdMember l = ctx.store(EtcdStore.class).leader();
      ctx.store(EtcdStore.class).peers().isolate(l.name(), mode);
      return l.name();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      long e = ctx.electionTimeoutMillis();
      return Duration.ofMillis(between(random, 3 * e, 6 * e));
    }

    @Override
    public void recover(ChaosContext ctx) {
      ctx.store(EtcdStore.class).peers().heal();
    }
  }

  /** Cut the MASTER candidate's client links to the store (blackhole or reset) for longer than its TTL. */
  static final class CutCandidate implements Fault {
    private final TcpProxy.Mode mode;
    private ChaosContext.Slot target;

    CutCandidate(TcpProxy.Mode mode) {
      this.mode = mode;
    }

    @Override
    public String name() {
      return "candidate-cut-" + mode.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws InterruptedException {
      target = ctx.masterSlot();
      target.links().cut(mode);
      return target.process();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(ctx.ttlMillis() + between(random, 500, 1500));
    }

    @Override
    public void recover(ChaosContext ctx) {
      target.links().heal();
    }
  }

  /** SIGKILL the MASTER candidate's JVM; recovery starts a new incarnation in its place. */
  static final class KillCandidate implements Fault {
    private ChaosContext.Slot target;

    @Override
    public String name() {
      return "candidate-kill";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws Exception {
      target = ctx.masterSlot();
      String process = target.process();
      ctx.kill(target);
      return process;
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(between(random, 200, 1000));
    }

    @Override
    public void recover(ChaosContext ctx) throws Exception {
      ctx.restart(target);
    }
  }

  /** SIGSTOP the MASTER candidate's JVM for longer than its TTL (a long GC pause), then SIGCONT. */
  static final class PauseCandidate implements Fault {
    private ChaosContext.Slot target;
    private long stoppedAt;

    @Override
    public String name() {
      return "candidate-pause";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws Exception {
      target = ctx.masterSlot();
      if (random.nextBoolean()) {
        // Right after a write the workload reads the counter (a few ms) and "thinks" (40 ms)
        // before its next guarded write: a freeze there makes it send that write with a stale
        // token after SIGCONT, which etcd must refuse.
        if (ctx.recorder().awaitWrite(target.process(), 1000)) {
          Thread.sleep(8);
        }
      }
      stoppedAt = System.nanoTime();
      target.candidate().pause();
      return target.process();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(ctx.ttlMillis() + between(random, 1500, 2500));
    }

    @Override
    public void recover(ChaosContext ctx) throws Exception {
      target.candidate().resume();
      ctx.recorder().froze(target.process(), stoppedAt, System.nanoTime());
    }
  }

  /**
   * The MASTER resigns (a graceful handover): on etcd with standby leases, the key goes to the
   * queue's head in one transaction (PROTOCOL.md §4.5), which must hand over without overlap
   * and without a stale write, like every other term change.
   */
  static final class ResignCandidate implements Fault {
    @Override
    public String name() {
      return "candidate-resign";
    }

    @Override
    public TargetKind kind() {
      return TargetKind.CANDIDATE;
    }

    @Override
    public String inject(ChaosContext ctx, Random random) throws Exception {
      ChaosContext.Slot target = ctx.masterSlot();
      target.candidate().send("resign");
      return target.process();
    }

    @Override
    public Duration hold(ChaosContext ctx, Random random) {
      return Duration.ofMillis(between(random, 200, 800));
    }

    @Override
    public void recover(ChaosContext ctx) {
      // Nothing to heal: the resigned candidate stays in the election.
    }
  }
}
