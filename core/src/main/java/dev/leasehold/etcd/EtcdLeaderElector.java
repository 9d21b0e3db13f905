package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * EtcdLeaderElector builds {@link LeaderElector}s that run the Leasehold protocol against
 * etcd: the etcd machine ({@code ElectionMachine}) on the shared runtime, with jetcd calls
 * behind the store port.
 *
 * <p>One event-loop thread per elector owns the machine; jetcd callbacks only enqueue inputs
 * on it, and nothing ever blocks a jetcd or Vert.x thread. Events reach listeners on a
 * separate dispatcher thread (or the executor given at subscription), never on the event loop
 * and never under a lock. The jetcd client of an elector built from endpoints is created at
 * {@code start()} and closed by {@code close()}; a client passed in is never closed.
 *
 * <p>Stateless and thread-safe; the electors it builds are thread-safe.
 */
public final class EtcdLeaderElector {
  private EtcdLeaderElector() {}

  /** builder starts configuring an elector. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builder configures an etcd {@link LeaderElector}: the backend-neutral settings (inherited
   * from {@link ElectorConfig.Settings}, or all at once with {@code config(ElectorConfig)})
   * plus etcd's own. {@link #build()} validates everything and names the field and the value
   * of the first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder extends ElectorConfig.Settings<Builder> {
    private List<String> endpoints;
    private Client client;
    private Supplier<Scheduler> scheduler = ThreadScheduler::new;
    private Long randomSeed;

    private Builder() {}

    /** endpoints sets the etcd client URLs, such as {@code http://127.0.0.1:2379}. */
    public Builder endpoints(String... endpoints) {
      this.endpoints = endpoints == null ? null : Arrays.asList(endpoints);
      return this;
    }

    /** endpoints sets the etcd client URLs. */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = endpoints == null ? null : new ArrayList<>(endpoints);
      return this;
    }

    /**
     * client uses an existing jetcd client instead of endpoints; the elector never closes it.
     * This is also the way to TLS and authentication until the builder has options for them.
     */
    public Builder client(Client client) {
      this.client = client;
      return this;
    }

    /** scheduler replaces the threads and clock the elector runs on; for tests. */
    Builder scheduler(Supplier<Scheduler> scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /** randomSeed fixes the retry jitter; for tests. */
    Builder randomSeed(long seed) {
      this.randomSeed = seed;
      return this;
    }

    /**
     * build validates the settings and creates an elector that has not started; it makes no
     * connection and starts no thread until {@link LeaderElector#start()}.
     */
    public LeaderElector build() {
      ElectorConfig validated = buildConfig();
      if (client != null && endpoints != null) {
        throw new IllegalArgumentException(
            "endpoints must not be set together with client, but was " + endpoints);
      }
      Supplier<Client> clients;
      if (client == null) {
        List<String> urls = validateEndpoints(endpoints);
        clients = () -> Client.builder().endpoints(urls.toArray(String[]::new)).build();
      } else {
        Client given = client;
        clients = () -> given;
      }
      EtcdStore store =
          new EtcdStore(clients, client == null, validated.electionKey(), validated.candidateId());
      ElectionMachine machine =
          new ElectionMachine(
              ProtocolConfig.from(validated),
              randomSeed != null ? new SplittableRandom(randomSeed) : new SplittableRandom());
      String name = validated.candidateId() + "@" + validated.electionKey();
      return new ElectorRuntime(validated, machine, store, scheduler.get(), name);
    }

    private static List<String> validateEndpoints(List<String> endpoints) {
      if (endpoints == null || endpoints.isEmpty()) {
        throw new IllegalArgumentException(
            "endpoints must name at least one etcd URL such as http://127.0.0.1:2379 (or set"
                + " client), but was " + endpoints);
      }
      List<String> urls = new ArrayList<>();
      for (int i = 0; i < endpoints.size(); i++) {
        String e = endpoints.get(i);
        String problem = endpointProblem(e);
        if (problem != null) {
          throw new IllegalArgumentException(
              "endpoints[" + i + "] must be a URL like http://127.0.0.1:2379 (" + problem
                  + "), but was " + (e == null ? "null" : "\"" + e + "\""));
        }
        urls.add(e.trim());
      }
      return urls;
    }

    private static String endpointProblem(String e) {
      if (e == null || e.isBlank()) {
        return "empty";
      }
      if (e.contains(",")) {
        return "one URL per endpoint: pass several as separate arguments, not joined by commas";
      }
      if (!e.contains("://")) {
        return "scheme must be http";
      }
      URI uri;
      try {
        uri = new URI(e.trim());
      } catch (Exception bad) {
        return "not a URI";
      }
      if ("https".equals(uri.getScheme())) {
        // jetcd ignores the scheme without an SSL context and would connect in plaintext.
        return "https needs TLS settings the builder does not have yet; build a jetcd Client"
            + " with an SSL context and pass it with client(...)";
      }
      if (!"http".equals(uri.getScheme())) {
        return "scheme must be http";
      }
      if (uri.getHost() == null) {
        return "no host";
      }
      if (uri.getPort() <= 0 || uri.getPort() > 65535) {
        return "no port";
      }
      return null;
    }
  }
}
