package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.Random;

/**
 * RestartEtcdCluster stops every etcd member (SIGTERM or SIGKILL, at random) and starts them
 * again on their data dirs (issue 27). etcd restores its leases with a fresh TTL, so a MASTER
 * whose renewal deadline has not passed by then keeps its term, and one whose deadline passed
 * has stepped down (the checker's overlap and stale-write rules judge both); the store is gone
 * while it lasts, so losses are excused and the liveness bound starts at the restart. Not
 * thread-safe.
 */
final class RestartEtcdCluster implements Fault {
  @Override
  public String name() {
    return "etcd-restart-all";
  }

  @Override
  public TargetKind kind() {
    return TargetKind.STORE;
  }

  @Override
  public boolean quorumKept() {
    return false;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) {
    boolean crash = random.nextBoolean();
    for (EtcdMember m : ctx.store(EtcdStore.class).cluster().members()) {
      if (crash) {
        m.kill();
      } else {
        m.stop();
      }
    }
    return crash ? "all (SIGKILL)" : "all (SIGTERM)";
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    // Some restarts end within the MASTER's renewal deadline, others past it (the members take
    // about a second more to start and elect).
    return Duration.ofMillis(Faults.between(random, 200, ctx.ttlMillis() + 1000));
  }

  @Override
  public void recover(ChaosContext ctx) {
    for (EtcdMember m : ctx.store(EtcdStore.class).cluster().members()) {
      m.start();
    }
  }
}
