package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.Random;

/**
 * IsolateEtcdFollower cuts an etcd follower member off from its peers (blackhole, both ways)
 * while the candidates' clients stay connected to it (issue 27). It picks a follower the MASTER's
 * client has a connection to, when there is one, so the MASTER's own calls may land on a member
 * that lost its leader: with the hasleader metadata such a member answers "no leader" once its
 * election timeout passed, and before that a call waits out its rpc timeout, so the question is
 * whether jetcd moves off it before the MASTER's renewal deadline. The quorum stays (two members
 * of three), so a loss of the MASTER is a spurious loss. Not thread-safe.
 */
final class IsolateEtcdFollower implements Fault {
  @Override
  public String name() {
    return "etcd-isolate-follower";
  }

  @Override
  public TargetKind kind() {
    return TargetKind.STORE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws InterruptedException {
    EtcdStore store = ctx.store(EtcdStore.class);
    EtcdStore.FollowerPick pick = store.pickFollowerUsedBy(ctx.masterSlot().links(), random);
    store.peers().isolate(pick.member().name(), TcpProxy.Mode.BLACKHOLE);
    return pick.member().name() + (pick.used() ? " (MASTER's)" : "");
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    long e = ctx.electionTimeoutMillis();
    return Duration.ofMillis(Faults.between(random, 3 * e, 6 * e));
  }

  @Override
  public void recover(ChaosContext ctx) {
    ctx.store(EtcdStore.class).peers().heal();
  }
}
