package dev.leasehold.bench.contender;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.election.LeaderKey;
import io.etcd.jetcd.election.LeaderResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * JetcdElectionContender uses jetcd's {@code Election} client the way its documentation
 * suggests: grant a lease, keep it alive with jetcd's {@code keepAlive} helper, campaign with
 * it, observe the election, and resign with the leader key. Leadership counts as lost when
 * the user would learn it: resign/close, or the keep-alive helper reporting an error or
 * completing (jetcd completes it when its own deadline, reply time + TTL checked on a 1 s
 * tick, has passed). After a loss it campaigns again with a fresh lease.
 *
 * <p>All state is confined to one single-threaded executor.
 */
final class JetcdElectionContender implements Contender {
  private static final long RETRY_MILLIS = 500;

  private final Client client;
  private final boolean ownsClient;
  private final Election election;
  private final ByteSequence name;
  private final ByteSequence value;
  private final long ttlSeconds;
  private final Sink sink;
  private final ScheduledExecutorService exec;

  // Confined to exec.
  private int generation;
  private long leaseId;
  private CloseableClient keepAlive;
  private LeaderKey leaderKey;
  private boolean leading;
  private boolean closed;

  JetcdElectionContender(Client client, String[] endpoints, String key, String id, Duration ttl, Sink sink) {
    this.ownsClient = client == null;
    this.client = client != null ? client : Client.builder().endpoints(endpoints).build();
    this.election = this.client.getElectionClient();
    this.name = ByteSequence.from(key, StandardCharsets.UTF_8);
    this.value = ByteSequence.from(id, StandardCharsets.UTF_8);
    this.ttlSeconds = ttl.toSeconds();
    this.sink = sink;
    this.exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "jetcd-contender-" + id);
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void start() {
    exec.execute(this::campaignWithFreshLease);
    election.observe(
        name,
        new Election.Listener() {
          @Override
          public void onNext(LeaderResponse response) {}

          @Override
          public void onError(Throwable throwable) {}

          @Override
          public void onCompleted() {}
        });
  }

  private void campaignWithFreshLease() {
    if (closed) {
      return;
    }
    int gen = ++generation;
    client
        .getLeaseClient()
        .grant(ttlSeconds, 2, TimeUnit.SECONDS)
        .whenComplete(
            (r, e) ->
                exec.execute(
                    () -> {
                      if (gen != generation || closed) {
                        if (r != null) {
                          client.getLeaseClient().revoke(r.getID());
                        }
                        return;
                      }
                      if (e != null) {
                        exec.schedule(this::campaignWithFreshLease, RETRY_MILLIS, TimeUnit.MILLISECONDS);
                        return;
                      }
                      leaseId = r.getID();
                      keepAlive = client.getLeaseClient().keepAlive(leaseId, observer(gen));
                      campaign(gen);
                    }));
  }

  private void campaign(int gen) {
    long lease = leaseId;
    election
        .campaign(name, lease, value)
        .whenComplete(
            (r, e) -> {
              long now = System.nanoTime();
              exec.execute(
                  () -> {
                    if (gen != generation || closed) {
                      if (r != null) {
                        election.resign(r.getLeader());
                      }
                      return;
                    }
                    if (e != null) {
                      exec.schedule(() -> {
                        if (gen == generation && !leading) {
                          campaign(gen);
                        }
                      }, RETRY_MILLIS, TimeUnit.MILLISECONDS);
                      return;
                    }
                    leaderKey = r.getLeader();
                    leading = true;
                    sink.elected(now, now);
                  });
            });
  }

  private StreamObserver<LeaseKeepAliveResponse> observer(int gen) {
    return new StreamObserver<>() {
      @Override
      public void onNext(LeaseKeepAliveResponse value) {}

      @Override
      public void onError(Throwable t) {
        long now = System.nanoTime();
        exec.execute(() -> leaseLost(gen, now, "KEEPALIVE_ERROR"));
      }

      @Override
      public void onCompleted() {
        long now = System.nanoTime();
        exec.execute(() -> leaseLost(gen, now, "LEASE_EXPIRED"));
      }
    };
  }

  private void leaseLost(int gen, long now, String cause) {
    if (gen != generation || closed) {
      return;
    }
    if (leading) {
      leading = false;
      sink.lost(now, cause);
    }
    dropLease();
    campaignWithFreshLease();
  }

  private void dropLease() {
    if (keepAlive != null) {
      keepAlive.close();
      keepAlive = null;
    }
    if (leaseId != 0) {
      client.getLeaseClient().revoke(leaseId);
      leaseId = 0;
    }
    leaderKey = null;
  }

  @Override
  public void resign() {
    exec.execute(
        () -> {
          if (!leading || closed) {
            return;
          }
          leading = false;
          sink.lost(System.nanoTime(), "RESIGNED");
          int gen = generation;
          election
              .resign(leaderKey)
              .whenComplete(
                  (r, e) ->
                      exec.execute(
                          () -> {
                            // Stay a candidate: join the queue again with the same lease.
                            if (gen == generation && !closed && !leading) {
                              campaign(gen);
                            }
                          }));
        });
  }

  @Override
  public void close() {
    try {
      exec.submit(
              () -> {
                closed = true;
                if (leading) {
                  leading = false;
                  sink.lost(System.nanoTime(), "CLOSED");
                }
                if (keepAlive != null) {
                  keepAlive.close();
                }
                if (leaseId != 0) {
                  try {
                    client.getLeaseClient().revoke(leaseId).get(2, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    // The lease expires within its TTL.
                  }
                }
              })
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Closing is best effort; the process exits next.
    }
    exec.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }
}
