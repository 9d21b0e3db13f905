package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * CompactDefragEtcd compacts etcd's history past a follower's watch and defragments every member
 * while the elector runs (issue 27).
 *
 * <p>A synced watch survives a compaction; etcd cancels a watch with ErrCompacted only when it
 * starts below the compacted revision. The elector opens its watch from just past its last read,
 * so the fault makes that gap wide: it resets a follower candidate's client links (its watch
 * fails), lets them pass again {@value #DELAY_MILLIS} ms slower each way, and compacts at the
 * current revision every {@value #COMPACT_EVERY_MILLIS} ms while the MASTER's counter writes
 * move the revision on. The follower's re-read and its new watch are then two delayed trips
 * apart, a compaction falls between them, and the watch is cancelled: the elector must read the
 * key and watch again. Without a cancellation after {@value #MAX_COMPACTING_MILLIS} ms (on a
 * loaded machine the new watch may come before a compaction falls in the gap), the links are reset
 * again, up to {@value #ATTEMPTS} times. Then every member is defragmented, one after the other,
 * and the links heal.
 *
 * <p>{@link #checkAfter} proves that this path ran, from the follower's {@link
 * dev.leasehold.it.WatchTrace} lines: a {@code COMPACTED} cancellation after the injection, then
 * a watch created from the last compaction's revision or above (a compaction at revision R keeps R,
 * so a watch from R is one etcd accepts). Not thread-safe.
 */
final class CompactDefragEtcd implements Fault {
  private static final long DELAY_MILLIS = 150;
  private static final long COMPACT_EVERY_MILLIS = 100;
  private static final long MAX_COMPACTING_MILLIS = 8000;
  private static final int ATTEMPTS = 3;

  private ChaosContext.Slot target;
  private int linesBefore;
  private long compactedAt;

  @Override
  public String name() {
    return "etcd-compact-defrag";
  }

  @Override
  public TargetKind kind() {
    return TargetKind.STORE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws Exception {
    ChaosContext.Slot master = ctx.masterSlot();
    List<ChaosContext.Slot> followers = ctx.slots().stream().filter(s -> s != master).toList();
    target = followers.get(random.nextInt(followers.size()));
    linesBefore = target.candidate().lines().size();
    EtcdStore store = ctx.store(EtcdStore.class);
    int compactions = 0;
    // On a loaded machine the follower may watch again before a compaction falls in the gap, and
    // a synced watch survives compactions: the links are reset again, up to ATTEMPTS times.
    for (int attempt = 0; attempt < ATTEMPTS && !sawCompacted(); attempt++) {
      target.links().cut(TcpProxy.Mode.RESET);
      Thread.sleep(200);
      target.links().heal();
      target.links().delay(DELAY_MILLIS);
      long end = System.nanoTime() + MAX_COMPACTING_MILLIS * 1_000_000L;
      do {
        compactedAt = store.compact();
        compactions++;
        Thread.sleep(COMPACT_EVERY_MILLIS);
      } while (!sawCompacted() && System.nanoTime() < end);
    }
    ctx.recorder().note(compactions + " compactions, the last at revision " + compactedAt);
    for (EtcdMember m : store.cluster().members()) {
      store.adminClient().getMaintenanceClient().defragmentMember(m.clientEndpoint()).get(10, TimeUnit.SECONDS);
    }
    ctx.recorder().note("defragmented every member");
    return target.process();
  }

  private boolean sawCompacted() {
    List<String> lines = target.candidate().lines();
    return lines.subList(Math.min(linesBefore, lines.size()), lines.size()).stream()
        .anyMatch(l -> l.startsWith("WATCH ") && l.contains(" COMPACTED "));
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    return Duration.ofMillis(Faults.between(random, 100, 300));
  }

  @Override
  public void recover(ChaosContext ctx) {
    target.links().heal();
  }

  @Override
  public void checkAfter(ChaosContext ctx) throws Exception {
    ctx.awaitSteady(ctx.steadyTimeout());
    long end = System.nanoTime() + ctx.steadyTimeout().toNanos();
    String missing = "a COMPACTED cancellation";
    while (System.nanoTime() < end) {
      List<String> lines = target.candidate().lines();
      boolean compacted = false;
      for (String l : lines.subList(Math.min(linesBefore, lines.size()), lines.size())) {
        String[] f = l.split(" ");
        if (f.length == 4 && f[0].equals("WATCH") && f[2].equals("COMPACTED")) {
          compacted = true;
          missing = "a watch created at or above revision " + compactedAt + " after the cancellation";
        } else if (compacted && f.length == 4 && f[0].equals("WATCH") && f[2].equals("CREATE")
            && Long.parseLong(f[3]) >= compactedAt) {
          ctx.recorder().note(target.process() + " watched again from revision " + f[3] + " after ErrCompacted");
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(target.process() + " showed no " + missing + " within " + ctx.steadyTimeout()
        + " of compacting at revision " + compactedAt + "; its watch lines: " + target.candidate().lines().stream()
        .filter(l -> l.startsWith("WATCH")).toList());
  }
}
