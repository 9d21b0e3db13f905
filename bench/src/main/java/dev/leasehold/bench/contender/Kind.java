package dev.leasehold.bench.contender;

import dev.leasehold.LeaderElector;
import io.etcd.jetcd.Client;
import java.time.Duration;

/** Kind names the election implementations the bench compares (and one Leasehold variant); an enum, so thread-safe. */
public enum Kind {
  /** LEASEHOLD is this project's {@code LeaderElector} with its defaults. */
  LEASEHOLD("Leasehold"),
  /** LEASEHOLD_NO_STANDBY is Leasehold with {@code standbyLease(false)}, to measure what the standby lease buys. */
  LEASEHOLD_NO_STANDBY("Leasehold, standbyLease off"),
  /** JETCD is jetcd's built-in {@code Election} client (etcd's server-side election API). */
  JETCD("jetcd Election"),
  /** POLLING is the seed's original polling design, written from its description. */
  POLLING("polling (seed)");

  private final String label;

  Kind(String label) {
    this.label = label;
  }

  /** label is the name used in the report and the plots. */
  public String label() {
    return label;
  }

  /**
   * create builds one candidate; {@code client} is shared when not null, else the contender
   * opens its own client on {@code endpoints}.
   */
  public Contender create(
      Client client, String[] endpoints, String key, String id, Duration ttl, Contender.Sink sink) {
    return switch (this) {
      case LEASEHOLD -> new LeaseholdContender(client, endpoints, key, id, ttl, true, sink);
      case LEASEHOLD_NO_STANDBY -> new LeaseholdContender(client, endpoints, key, id, ttl, false, sink);
      case JETCD -> new JetcdElectionContender(client, endpoints, key, id, ttl, sink);
      case POLLING -> new PollingContender(client, endpoints, key, id, ttl, sink);
    };
  }
}
