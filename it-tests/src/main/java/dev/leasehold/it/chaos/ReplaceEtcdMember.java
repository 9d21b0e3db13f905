package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.History.TargetKind;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * ReplaceEtcdMember is a membership change (issue 27): it removes an etcd member (MemberRemove,
 * then its process ends and its data dir goes), holds the cluster at two members, then adds a new
 * member in its place (MemberAdd with the peer URL it will advertise, then a fresh data dir and
 * {@code --initial-cluster-state existing}), as an operator replacing a machine would.
 *
 * <p>The candidates' endpoint lists never change: each candidate's client proxy at the removed
 * member's position resets its connections and refuses new ones until the new member is up, then
 * leads to the new member (like a DNS name moved to the new machine). Two members of two keep a
 * quorum, and so do two of three while the new member starts, so a lost term is a spurious loss.
 *
 * <p>The {@link Target} picks the member. Not thread-safe.
 */
final class ReplaceEtcdMember implements Fault {
  /** Target is which member goes. */
  enum Target {
    /** RANDOM is any member, leader or follower. */
    RANDOM,
    /**
     * CLIENTS is a follower the MASTER's client has connections to (all of them, with jetcd's
     * round-robin balancing), so the MASTER's own calls and streams on it break.
     */
    CLIENTS,
    /** LEADER is the etcd leader: the others elect a new one once it has gone. */
    LEADER,
    /**
     * ISOLATED is the member the peer proxies have cut off, removed through the other two, for a
     * removal during a partition (composed after an isolation).
     */
    ISOLATED
  }

  private final Target which;
  private int position = -1;

  ReplaceEtcdMember(Target which) {
    this.which = which;
  }

  @Override
  public String name() {
    return "etcd-replace-member-" + which.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public TargetKind kind() {
    return TargetKind.STORE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws InterruptedException {
    EtcdStore store = ctx.store(EtcdStore.class);
    List<EtcdMember> members = store.cluster().members();
    EtcdMember target;
    String mark = "";
    switch (which) {
      case RANDOM -> target = members.get(random.nextInt(members.size()));
      case LEADER -> target = store.leader();
      case ISOLATED -> {
        String isolated = store.peers().isolated();
        target = members.stream().filter(m -> m.name().equals(isolated)).findFirst()
            .orElseThrow(() -> new IllegalStateException("no member is cut off from its peers: " + members));
      }
      case CLIENTS -> {
        EtcdStore.FollowerPick pick = store.pickFollowerUsedBy(ctx.masterSlot().links(), random);
        target = pick.member();
        mark = pick.used() ? " (MASTER's)" : "";
      }
      default -> throw new IllegalStateException("unknown target " + which);
    }
    position = store.removeMember(target);
    ctx.recorder().note("removed etcd member " + target.name() + " (position " + position + ")");
    return target.name() + mark;
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    long e = ctx.electionTimeoutMillis();
    return Duration.ofMillis(Faults.between(random, e, 2 * e));
  }

  @Override
  public void recover(ChaosContext ctx) {
    if (position < 0) {
      return;
    }
    List<ClientProxies> links = ctx.slots().stream().map(ChaosContext.Slot::links).toList();
    EtcdMember added = ctx.store(EtcdStore.class).addMember(position, links);
    position = -1;
    ctx.recorder().note("added etcd member " + added.name() + " in its place");
  }
}
