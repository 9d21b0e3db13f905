package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.List;
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
    EtcdMember leader = store.leader();
    List<EtcdMember> members = store.cluster().members();
    ClientProxies masterLinks = ctx.masterSlot().links();
    List<EtcdMember> followers = members.stream().filter(m -> m != leader).toList();
    List<EtcdMember> used = followers.stream().filter(m -> masterLinks.connections(members.indexOf(m)) > 0).toList();
    List<EtcdMember> from = used.isEmpty() ? followers : used;
    EtcdMember target = from.get(random.nextInt(from.size()));
    store.peers().isolate(target.name(), TcpProxy.Mode.BLACKHOLE);
    return target.name() + (used.contains(target) ? " (MASTER's)" : "");
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
