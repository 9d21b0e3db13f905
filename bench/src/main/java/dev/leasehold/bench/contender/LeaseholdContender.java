package dev.leasehold.bench.contender;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdLeaderElector;
import io.etcd.jetcd.Client;
import java.time.Duration;

/**
 * LeaseholdContender is an {@link LeaderElector} with every default but the TTL (and,
 * for the variant, the standby lease).
 */
final class LeaseholdContender implements Contender {
  private final LeaderElector elector;

  LeaseholdContender(
      Client client, String[] endpoints, String key, String id, Duration ttl, boolean standby, Sink sink) {
    EtcdLeaderElector.Builder b =
        EtcdLeaderElector.builder().electionKey(key).candidateId(id).leaseTtl(ttl).standbyLease(standby);
    if (client != null) {
      b.client(client);
    } else {
      b.endpoints(endpoints);
    }
    this.elector = b.build();
    elector.onLeadershipChanged(
        e -> {
          long now = System.nanoTime();
          if (e.cause() == LeadershipEvent.Cause.SUBSCRIBED) {
            return;
          }
          if (e.isElected()) {
            sink.elected(now, e.nanoTime());
          } else if (e.isLost()) {
            sink.lost(now, e.cause().name());
          }
        });
  }

  @Override
  public void start() {
    elector.start();
  }

  @Override
  public boolean knowsLeader() {
    return elector.isLeader() || elector.currentLeader().isPresent();
  }

  @Override
  public void resign() {
    elector.resign();
  }

  @Override
  public void close() {
    elector.close();
  }
}
