package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import dev.leasehold.protocol.ElectionMachine;
import dev.leasehold.protocol.ProtocolConfig;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.ThreadScheduler;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
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
    private final EtcdConnection connection = new EtcdConnection();
    private Supplier<Scheduler> scheduler = ThreadScheduler::new;
    private Long randomSeed;

    private Builder() {}

    /**
     * endpoints sets the etcd client URLs, such as {@code http://127.0.0.1:2379}, or
     * {@code https://...} for every endpoint once TLS is set ({@link #tls(Path)}).
     */
    public Builder endpoints(String... endpoints) {
      connection.endpoints(endpoints == null ? null : Arrays.asList(endpoints));
      return this;
    }

    /** endpoints sets the etcd client URLs. */
    public Builder endpoints(List<String> endpoints) {
      connection.endpoints(endpoints);
      return this;
    }

    /**
     * client uses an existing jetcd client instead of endpoints; the elector never closes it,
     * and its TLS and credentials are the client's own (the builder's TLS and credential
     * options must then stay unset). Build it with {@code waitForReady(false)} to see why
     * calls fail (a refused handshake, say) instead of timeouts. The elector cannot replace a
     * client it was given: after a long outage its channel reconnects on gRPC's own backoff,
     * which grows to two minutes, where an elector's own client reconnects within
     * {@code retryBackoffMax}.
     */
    public Builder client(Client client) {
      connection.client(client);
      return this;
    }

    /**
     * tls makes every endpoint speak TLS and trust only the CA certificates in
     * {@code caCertificate}, a PEM file (several certificates may follow one another); the
     * server's certificate must also name the endpoint's host (or {@link #tlsAuthority}).
     * Replaces {@link #tlsJvmDefaultTrust()}. The file is read at {@link #build()}.
     */
    public Builder tls(Path caCertificate) {
      connection.tls(caCertificate);
      return this;
    }

    /**
     * tlsJvmDefaultTrust makes every endpoint speak TLS and trust the JVM's default CAs (its
     * {@code cacerts}, or {@code javax.net.ssl.trustStore}) instead of a file given to
     * {@link #tls(Path)}, which it replaces. It has to be chosen: https endpoints without it
     * or {@code tls(...)} are rejected, so that no trust is taken for granted.
     */
    public Builder tlsJvmDefaultTrust() {
      connection.tlsJvmDefaultTrust();
      return this;
    }

    /**
     * tlsClientCertificate presents a client certificate for mutual TLS (etcd's
     * {@code --client-cert-auth}): {@code certificateChain} is a PEM file with the client's
     * certificate first, {@code privateKey} its unencrypted PKCS#8 PEM key
     * ({@code BEGIN PRIVATE KEY}). Needs {@link #tls(Path)} or {@link #tlsJvmDefaultTrust()};
     * the files are read, and the key checked against the certificate, at {@link #build()}.
     */
    public Builder tlsClientCertificate(Path certificateChain, Path privateKey) {
      connection.tlsClientCertificate(certificateChain, privateKey);
      return this;
    }

    /**
     * tlsAuthority sets the host name the server's certificate must carry, for every endpoint
     * (by default each endpoint's own host); for certificates issued for a name other than the
     * one dialled. Needs TLS.
     */
    public Builder tlsAuthority(String authority) {
      connection.tlsAuthority(authority);
      return this;
    }

    /**
     * credentials authenticates to etcd (when etcd runs with {@code auth enable}) as
     * {@code user}; the password is copied at this call, so the caller may clear its array,
     * and kept in memory as UTF-8 bytes for the client's lifetime, because jetcd
     * authenticates again whenever etcd drops the token (after an etcd restart, say). Over
     * {@code http://} endpoints the password and token cross the network in clear.
     */
    public Builder credentials(String user, char[] password) {
      connection.credentials(user, password);
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
     * build validates the settings, reads the TLS files, and creates an elector that has not
     * started; it makes no connection and starts no thread until {@link LeaderElector#start()}.
     */
    public LeaderElector build() {
      ElectorConfig validated =
          buildConfig(Duration.ofSeconds(1), Duration.ofSeconds(1), "etcd grants seconds");
      connection.check();
      Client given = connection.givenClient();
      EtcdClientFactory factory = given == null ? connection.factory(validated.rpcTimeout()) : null;
      Supplier<Client> clients = given == null ? factory : () -> given;
      // Made once everything is validated: a scheduler starts threads.
      Scheduler threads = scheduler.get();
      EtcdStore store =
          new EtcdStore(
              clients, given == null, validated.electionKey(), validated.candidateId(),
              new EtcdReasons(validated.electionKey(), factory),
              new Reconnect(threads::nanoTime, validated.retryBackoffMax().toNanos()),
              hedgeAfter(validated.rpcTimeout()));
      ElectionMachine machine =
          new ElectionMachine(
              ProtocolConfig.from(validated),
              randomSeed != null ? new SplittableRandom(randomSeed) : new SplittableRandom());
      String name = validated.candidateId() + "@" + validated.electionKey();
      return new ElectorRuntime(validated, machine, store, threads, name);
    }

    /**
     * hedgeAfter is how long a renewal's call waits for its answer before a copy goes to another
     * member: a fifth of the rpc timeout, at least 20 ms (a healthy member answers in a few).
     */
    static long hedgeAfter(Duration rpcTimeout) {
      return Math.max(20_000_000L, rpcTimeout.toNanos() / 5);
    }
  }
}
