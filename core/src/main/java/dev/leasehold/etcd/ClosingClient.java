package dev.leasehold.etcd;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Watch;
import java.util.concurrent.ExecutorService;

/**
 * ClosingClient is a jetcd client that shuts down its executor when it closes. jetcd shuts
 * down only an executor it made itself; the elector's clients get one it made ({@link
 * ContextExecutor} over a cached pool), so that closing the elector leaves no thread behind.
 *
 * <p>Thread-safe: as the jetcd client it wraps.
 */
final class ClosingClient implements Client {
  private final Client client;
  private final ExecutorService executor;

  ClosingClient(Client client, ExecutorService executor) {
    this.client = client;
    this.executor = executor;
  }

  @Override
  public Auth getAuthClient() {
    return client.getAuthClient();
  }

  @Override
  public KV getKVClient() {
    return client.getKVClient();
  }

  @Override
  public Cluster getClusterClient() {
    return client.getClusterClient();
  }

  @Override
  public Maintenance getMaintenanceClient() {
    return client.getMaintenanceClient();
  }

  @Override
  public Lease getLeaseClient() {
    return client.getLeaseClient();
  }

  @Override
  public Watch getWatchClient() {
    return client.getWatchClient();
  }

  @Override
  public Lock getLockClient() {
    return client.getLockClient();
  }

  @Override
  public Election getElectionClient() {
    return client.getElectionClient();
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      executor.shutdownNow();
    }
  }
}
