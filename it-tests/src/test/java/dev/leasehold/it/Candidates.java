package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import dev.leasehold.ElectorState;
import dev.leasehold.etcd.EtcdLeaderElector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/** Candidates is a set of in-process electors on one key, each with an {@link EventLog}. */
final class Candidates implements AutoCloseable {
  final String key;
  final List<LeaderElector> electors = new ArrayList<>();
  final List<EventLog> logs = new ArrayList<>();
  private final EtcdCluster cluster;

  Candidates(EtcdCluster cluster, String testName) {
    this.cluster = cluster;
    this.key = "/it/" + testName + "/" + UUID.randomUUID();
  }

  LeaderElector add(String candidateId, Duration ttl) {
    return add(candidateId, ttl, b -> { });
  }

  LeaderElector add(String candidateId, Duration ttl, Consumer<EtcdLeaderElector.Builder> tweak) {
    EtcdLeaderElector.Builder b =
        EtcdLeaderElector.builder()
            .endpoints(cluster.clientEndpoints())
            .electionKey(key)
            .candidateId(candidateId)
            .leaseTtl(ttl)
            .pollInterval(Duration.ofMillis(500));
    tweak.accept(b);
    LeaderElector e = b.build();
    EventLog log = new EventLog(candidateId);
    e.onLeadershipChanged(log);
    electors.add(e);
    logs.add(log);
    return e;
  }

  void startAll() {
    electors.forEach(LeaderElector::start);
  }

  List<LeaderElector> masters() {
    return electors.stream().filter(e -> e.state() == ElectorState.MASTER).toList();
  }

  long leaderCount() {
    return electors.stream().filter(LeaderElector::isLeader).count();
  }

  Optional<LeaderElector> leader() {
    List<LeaderElector> l = electors.stream().filter(LeaderElector::isLeader).toList();
    return l.size() == 1 ? Optional.of(l.get(0)) : Optional.empty();
  }

  EventLog logOf(LeaderElector e) {
    return logs.get(electors.indexOf(e));
  }

  @Override
  public void close() {
    electors.forEach(LeaderElector::close);
  }
}
