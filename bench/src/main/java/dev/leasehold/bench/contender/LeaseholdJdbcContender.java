package dev.leasehold.bench.contender;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.jdbc.JdbcLeaderElector;
import java.time.Duration;

/**
 * LeaseholdJdbcContender is a MariaDB {@link LeaderElector} from {@link JdbcLeaderElector} with
 * every default but the TTL; it may create its table. Thread-safe, as the elector is.
 */
final class LeaseholdJdbcContender implements Contender {
  private final LeaderElector elector;

  LeaseholdJdbcContender(String url, String user, String password, String key, String id, long ttlMillis,
      Sink sink) {
    this.elector =
        JdbcLeaderElector.builder()
            .jdbcUrl(url, user, password)
            .createTable(true)
            .electionKey(key)
            .candidateId(id)
            .leaseTtl(Duration.ofMillis(ttlMillis))
            .build();
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
