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
 * quorum, and so do two of three while the new member starts, so a lost term is a spurious loss,
 * except after the removal of the leader ({@link #quorumKept}).
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
  private boolean removedLeader;

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

  /**
   * quorumKept is false after the removal of the leader (LEADER, or RANDOM when it drew the
   * leader): the other two must then elect a leader with both their votes, and when both start
   * their elections in the same tick the vote splits and both wait again. One run had three such
   * rounds in a row and no etcd leader for 3.3 s after the removal, longer than the 2 s a MASTER
   * has to confirm a renewal (CHAOS.md, "Parameters, and why"): the store was unavailable, and a
   * loss then is no spurious loss.
   */
  @Override
  public boolean quorumKept() {
    return !removedLeader;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws InterruptedException {
    EtcdStore store = ctx.store(EtcdStore.class);
    List<EtcdMember> members = store.cluster().members();
    EtcdMember target;
    String mark = "";
    removedLeader = false;
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
    // The isolated member was the leader, but the other two elected their own before the removal.
    removedLeader = which != Target.ISOLATED && target == store.leader();
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
