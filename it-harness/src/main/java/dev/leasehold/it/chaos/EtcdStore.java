package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.EtcdMember;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import io.etcd.jetcd.options.CompactOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * EtcdStore is the chaos run's etcd: 3 members, each behind an inbound peer proxy
 * ({@link PeerProxies}), so that faults can kill, pause or isolate members. Not thread-safe;
 * the runner's thread only.
 */
public final class EtcdStore implements ChaosStore {
  private final EtcdCluster cluster;
  private final PeerProxies peers;
  private Client admin;
  private EtcdHistoryReplay replay;

  private EtcdStore(EtcdCluster cluster, PeerProxies peers) {
    this.cluster = cluster;
    this.peers = peers;
  }

  /** start launches the cluster with {@code config}'s election timeout and pre-vote, behind peer proxies. */
  public static EtcdStore start(ChaosConfig config) {
    PeerProxies peers = new PeerProxies();
    try {
      EtcdCluster cluster = EtcdCluster.builder().members(3).name("chaos")
          .electionTimeoutMillis(config.electionTimeoutMillis()).preVote(config.preVote()).peerRouter(peers).start();
      peers.attach(cluster);
      return new EtcdStore(cluster, peers);
    } catch (RuntimeException e) {
      peers.close();
      throw e;
    }
  }

  /** cluster is the etcd cluster. */
  public EtcdCluster cluster() {
    return cluster;
  }

  /** peers are the proxies in front of every member's peer port. */
  public PeerProxies peers() {
    return peers;
  }

  /** adminClient is a client of every member, for the faults' own calls (compaction, defrag); closed with the store. */
  public Client adminClient() {
    if (admin == null) {
      admin = cluster.rootClient();
    }
    return admin;
  }

  /**
   * compact replays the run's keys' history through a fresh mark (so the checker keeps it), then
   * compacts etcd physically at the mark's revision, and returns that revision.
   */
  public long compact() throws Exception {
    long revision = replay.replayToMark(adminClient(), "~compact");
    adminClient().getKVClient().compact(revision, CompactOption.builder().withCompactPhysical(true).build())
        .get(10, TimeUnit.SECONDS);
    return revision;
  }

  /**
   * removeMember removes {@code member} from the cluster ({@link EtcdCluster#removeMember}), closes its
   * peer proxy, and drops the admin client, which dialled it; each candidate's proxy at its position
   * leads nowhere until {@link #addMember}.
   *
   * @param member a member now
   * @return its position, each candidate's {@link ClientProxies} index for it
   */
  public int removeMember(EtcdMember member) {
    int position = cluster.removeMember(member);
    peers.forget(member.name());
    dropAdminClient();
    return position;
  }

  /**
   * addMember adds a new member at {@code position} ({@link EtcdCluster#addMember}) and points the
   * proxy at that position of every one of {@code links} at it, so the candidates' endpoint lists,
   * which never change, reach every member again.
   *
   * @param position the position a removed member left
   * @param links every candidate's client proxies
   * @return the new member
   */
  public EtcdMember addMember(int position, List<ClientProxies> links) {
    EtcdMember added = cluster.addMember(position);
    for (ClientProxies l : links) {
      l.retarget(position, added.clientPort());
    }
    dropAdminClient();
    return added;
  }

  private void dropAdminClient() {
    if (admin != null) {
      admin.close();
      admin = null;
    }
  }

  /**
   * FollowerPick is a follower member a fault drew, and whether the client it was drawn for had
   * connections to it.
   *
   * @param member the follower
   * @param used whether the client's links had open connections to it
   */
  public record FollowerPick(EtcdMember member, boolean used) {}

  /**
   * pickFollowerUsedBy draws one of the followers {@code links} has open connections to, or any
   * follower when it has none.
   */
  public FollowerPick pickFollowerUsedBy(ClientProxies links, Random random) {
    EtcdMember leader = leader();
    List<EtcdMember> members = cluster.members();
    List<EtcdMember> followers = members.stream().filter(m -> m != leader).toList();
    List<EtcdMember> used = followers.stream().filter(m -> links.connections(members.indexOf(m)) > 0).toList();
    List<EtcdMember> from = used.isEmpty() ? followers : used;
    EtcdMember pick = from.get(random.nextInt(from.size()));
    return new FollowerPick(pick, used.contains(pick));
  }

  /**
   * queue lists the candidate ids in the election's queue (PROTOCOL.md §4.5: the participant keys
   * {@code <electionKey>/candidates/}, whose values are the candidates' ids), in key order.
   */
  public List<String> queue(String electionKey) throws Exception {
    ByteSequence prefix = ByteSequence.from(electionKey + "/candidates/", StandardCharsets.UTF_8);
    return adminClient().getKVClient().get(prefix, GetOption.builder().isPrefix(true).build())
        .get(5, TimeUnit.SECONDS).getKvs().stream().map(kv -> kv.getValue().toString(StandardCharsets.UTF_8))
        .toList();
  }

  /** leader is the etcd leader member now (waits up to 10 s for one). */
  public EtcdMember leader() {
    return cluster.awaitLeader(Duration.ofSeconds(10));
  }

  @Override
  public List<Integer> clientPorts() {
    return cluster.members().stream().map(EtcdMember::clientPort).toList();
  }

  @Override
  public List<String> endpoints(ClientProxies links) {
    return links.endpoints();
  }

  @Override
  public List<String> candidateArgs(ChaosConfig config, ClientProxies links) {
    List<String> args = new ArrayList<>(List.of(
        "--trace-rpcs=" + Boolean.getBoolean("chaos.traceRpcs"),
        "--require-leader=" + config.requireLeader(),
        "--trace-watch=true"));
    if (config.rpcTimeoutMillis() > 0) {
      args.add("--rpc-timeout-millis=" + config.rpcTimeoutMillis());
    }
    return args;
  }

  @Override
  public String unsteady() {
    for (EtcdMember m : cluster.members()) {
      if (!m.isRunning() || m.isPaused()) {
        return m + " not running";
      }
    }
    if (peers.isolated() != null) {
      return peers.isolated() + " isolated";
    }
    if (cluster.leader().isEmpty()) {
      return "no etcd leader";
    }
    try {
      cluster.awaitHealthy(Duration.ofMillis(1));
    } catch (IllegalStateException e) {
      return "etcd unhealthy: " + e.getMessage();
    }
    return null;
  }

  @Override
  public void healAll() {
    peers.heal();
    for (EtcdMember m : cluster.members()) {
      try {
        if (m.isPaused()) {
          m.resume();
        } else if (!m.isRunning()) {
          m.start();
        }
      } catch (RuntimeException ignored) {
        // Best effort.
      }
    }
  }

  @Override
  public void prepare(String electionKey, String counterKey) {
    replay = new EtcdHistoryReplay(electionKey.substring(0, electionKey.lastIndexOf('/') + 1), electionKey,
        counterKey);
  }

  @Override
  public StoreHistory read(String electionKey, String counterKey) throws Exception {
    return replay.finish(adminClient());
  }

  @Override
  public String describe(ChaosConfig config) {
    return "etcd election timeout " + config.electionTimeoutMillis() + " ms, pre-vote " + config.preVote()
        + ", candidate rpc timeout " + (config.rpcTimeoutMillis() > 0 ? config.rpcTimeoutMillis() + " ms"
        : "core's default") + ", hasleader metadata " + config.requireLeader();
  }

  @Override
  public History.Params params(ChaosConfig config) {
    return new History.Params(config.ttlSeconds() * 1_000_000_000L, config.electionTimeoutMillis() * 1_000_000L);
  }

  /** describePeers is the peer proxies' state, for an aborted run's report. */
  String describePeers() {
    return peers.describe();
  }

  @Override
  public void close() {
    dropAdminClient();
    peers.close();
    cluster.close();
  }
}
