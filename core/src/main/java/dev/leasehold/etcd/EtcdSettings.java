package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * EtcdSettings is how an elector or a session reaches etcd, validated: endpoints with their TLS
 * material and credentials (the PEM files read and checked once, when built), or a jetcd client
 * the caller made. {@link EtcdLeaderElector#of}, {@link EtcdSession#of} and {@code
 * Backends.Builder.etcd(...)} take it; the backend-neutral settings are an {@link
 * dev.leasehold.ElectorConfig}'s.
 *
 * <pre>{@code
 * EtcdSettings etcd = EtcdSettings.builder()
 *     .endpoints("https://10.0.0.1:2379", "https://10.0.0.2:2379")
 *     .tls(Path.of("/etc/leasehold/etcd-ca.pem"))
 *     .build();
 * LeaderElector elector = EtcdLeaderElector.of(config, etcd);
 * }</pre>
 *
 * <p>Immutable and thread-safe (a password given is kept, copied, for the clients made from
 * it); the builder is not thread-safe.
 */
public final class EtcdSettings {
  private final Client client;
  private final List<String> endpoints;
  private final EtcdClientFactory.Trust trust;
  private final EtcdClientFactory.ClientKey clientKey;
  private final String authority;
  private final String user;
  private final char[] password;

  private EtcdSettings(Builder b) {
    this.client = b.client;
    if (client != null) {
      b.rejectWithClient();
      this.endpoints = null;
      this.trust = null;
      this.clientKey = null;
      this.authority = null;
      this.user = null;
      this.password = null;
      return;
    }
    b.checkTlsChoice();
    this.endpoints = EtcdEndpoints.validate(b.endpoints, b.tlsSet());
    this.trust = b.trust();
    this.clientKey = b.clientKey();
    this.authority = b.authority();
    this.user = b.user();
    this.password = b.password();
  }

  /**
   * builder starts settings with nothing set: give endpoints or a client.
   *
   * @return a new, empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** givenClient is the caller's client, or null when electors make their own. */
  Client givenClient() {
    return client;
  }

  /**
   * factory is the maker of an elector's own clients, with every call bounded by {@code
   * rpcTimeout}; null with a given client.
   */
  EtcdClientFactory factory(Duration rpcTimeout) {
    return client != null
        ? null
        : new EtcdClientFactory(endpoints, trust, clientKey, authority, user, password, rpcTimeout);
  }

  /**
   * clientBuilder is a jetcd {@link ClientBuilder} with these settings' endpoints, TLS material
   * and credentials, and jetcd's defaults for everything else: for the application's own client
   * (a fenced job's writes, say), which reaches etcd as the elector does. The caller adds
   * options, builds the client and closes it. Unlike the clients an elector makes, it has no
   * {@link EtcdCallPolicy} (so jetcd's long-lived {@code keepAlive()} streams work) and waits
   * for a connection, as jetcd does by default.
   *
   * @return a new builder on each call
   * @throws IllegalStateException when these settings hold a client given with {@code
   *     client(...)}, which has its own connection settings
   */
  public ClientBuilder clientBuilder() {
    if (client != null) {
      throw new IllegalStateException(
          "clientBuilder needs settings made from endpoints, but these hold a client given with client(...)");
    }
    return EtcdClientFactory.connection(
        endpoints, trust, clientKey, authority, user,
        password == null ? null : EtcdClientFactory.utf8(password));
  }

  @Override
  public String toString() {
    if (client != null) {
      return "EtcdSettings{client given}";
    }
    return "EtcdSettings{endpoints=" + endpoints + (trust == null ? "" : ", tls")
        + (clientKey == null ? "" : ", client certificate")
        + (authority == null ? "" : ", tlsAuthority=" + authority)
        + (user == null ? "" : ", user=" + user) + "}";
  }

  /**
   * Builder collects how to reach etcd; {@link #build()} validates the combination, the
   * endpoints, the TLS files and the credentials, and names the option and the value of the
   * first problem.
   *
   * <p>Not thread-safe.
   */
  public static final class Builder {
    private List<String> endpoints;
    private Client client;
    private Path tlsCa;
    private boolean tlsJvmDefaultTrust;
    private Path tlsCertificateChain;
    private Path tlsPrivateKey;
    private String tlsAuthority;
    private String user;
    private char[] password;

    private Builder() {}

    /**
     * endpoints sets the etcd client URLs, such as {@code http://127.0.0.1:2379}, or
     * {@code https://...} for every endpoint once TLS is set ({@link #tls(Path)}).
     *
     * @param endpoints the URLs, {@code http://} or {@code https://}, at least one
     * @return this builder, for chaining
     */
    public Builder endpoints(String... endpoints) {
      return endpoints(endpoints == null ? null : Arrays.asList(endpoints));
    }

    /**
     * endpoints sets the etcd client URLs.
     *
     * @param endpoints the URLs, {@code http://} or {@code https://}, at least one
     * @return this builder, for chaining
     */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = endpoints == null ? null : new ArrayList<>(endpoints);
      return this;
    }

    /**
     * client uses an existing jetcd client instead of endpoints; it is never closed for you,
     * and its TLS and credentials are the client's own (the TLS and credential options must
     * then stay unset). Build it with {@code waitForReady(false)} to see why calls fail (a
     * refused handshake, say) instead of timeouts, and add {@link EtcdCallPolicy} for per-call
     * deadlines. If many electors share it, give it a small fixed executor ({@code
     * executorService(...)}): jetcd's default cached pool starts a thread per call in flight. A
     * client given cannot be replaced: after a long outage its channel reconnects on gRPC's own
     * backoff, which grows to two minutes, where an elector's own client reconnects within
     * {@code retryBackoffMax}.
     *
     * @param client the client to use
     * @return this builder, for chaining
     */
    public Builder client(Client client) {
      this.client = client;
      return this;
    }

    /**
     * tls makes every endpoint speak TLS and trust only the CA certificates in
     * {@code caCertificate}, a PEM file (several certificates may follow one another); the
     * server's certificate must also name the endpoint's host (or {@link #tlsAuthority}).
     * Replaces {@link #tlsJvmDefaultTrust()}. The file is read at build.
     *
     * @param caCertificate the PEM file of the CA certificates to trust
     * @return this builder, for chaining
     */
    public Builder tls(Path caCertificate) {
      this.tlsCa = caCertificate;
      this.tlsJvmDefaultTrust = false;
      return this;
    }

    /**
     * tlsJvmDefaultTrust makes every endpoint speak TLS and trust the JVM's default CAs (its
     * {@code cacerts}, or {@code javax.net.ssl.trustStore}) instead of a file given to
     * {@link #tls(Path)}, which it replaces. It has to be chosen: https endpoints without it
     * or {@code tls(...)} are rejected, so that no trust is taken for granted.
     *
     * @return this builder, for chaining
     */
    public Builder tlsJvmDefaultTrust() {
      this.tlsJvmDefaultTrust = true;
      this.tlsCa = null;
      return this;
    }

    /**
     * tlsClientCertificate presents a client certificate for mutual TLS (etcd's
     * {@code --client-cert-auth}): {@code certificateChain} is a PEM file with the client's
     * certificate first, {@code privateKey} its unencrypted PKCS#8 PEM key
     * ({@code BEGIN PRIVATE KEY}). Needs {@link #tls(Path)} or {@link #tlsJvmDefaultTrust()};
     * the files are read, and the key checked against the certificate, at build.
     *
     * @param certificateChain the PEM file with the client's certificate first
     * @param privateKey the PEM file of the client's unencrypted PKCS#8 key
     * @return this builder, for chaining
     */
    public Builder tlsClientCertificate(Path certificateChain, Path privateKey) {
      this.tlsCertificateChain = certificateChain;
      this.tlsPrivateKey = privateKey;
      return this;
    }

    /**
     * tlsAuthority sets the host name the server's certificate must carry, for every endpoint
     * (by default each endpoint's own host); for certificates issued for a name other than the
     * one dialled. Needs TLS.
     *
     * @param authority the host name to check the server's certificate against
     * @return this builder, for chaining
     */
    public Builder tlsAuthority(String authority) {
      this.tlsAuthority = authority;
      return this;
    }

    /**
     * credentials authenticates to etcd (when etcd runs with {@code auth enable}) as
     * {@code user}; the password is copied at this call, so the caller may clear its array,
     * and kept in memory as UTF-8 bytes for each client's lifetime, because jetcd
     * authenticates again whenever etcd drops the token (after an etcd restart, say). Over
     * {@code http://} endpoints the password and token cross the network in clear.
     *
     * @param user the etcd user
     * @param password the user's password; copied, so the caller may clear the array
     * @return this builder, for chaining
     */
    public Builder credentials(String user, char[] password) {
      this.user = user;
      this.password = password == null ? null : password.clone();
      return this;
    }

    /**
     * build validates the settings and reads the TLS files: with a client, no endpoint, TLS or
     * credential option may be set; a client certificate or authority needs TLS; then the
     * endpoints, the files and the credentials are checked.
     *
     * @return the validated settings, independent of this builder
     * @throws IllegalArgumentException naming the option and its value
     */
    public EtcdSettings build() {
      return new EtcdSettings(this);
    }

    private boolean tlsSet() {
      return tlsCa != null || tlsJvmDefaultTrust;
    }

    private void checkTlsChoice() {
      boolean tlsSet = tlsSet();
      if (!tlsSet && (tlsCertificateChain != null || tlsPrivateKey != null)) {
        throw new IllegalArgumentException(
            "tls must be set with tls(caCertificate) or tlsJvmDefaultTrust() when"
                + " tlsClientCertificate is, but was not set");
      }
      if (!tlsSet && tlsAuthority != null) {
        throw new IllegalArgumentException(
            "tls must be set with tls(caCertificate) or tlsJvmDefaultTrust() when tlsAuthority"
                + " is, but was not set");
      }
    }

    private void rejectWithClient() {
      if (endpoints != null) {
        throw new IllegalArgumentException(
            "endpoints must not be set together with client, but was " + endpoints);
      }
      if (tlsCa != null || tlsJvmDefaultTrust || tlsCertificateChain != null
          || tlsPrivateKey != null || tlsAuthority != null) {
        throw new IllegalArgumentException(
            "tls must not be set together with client (configure TLS on that jetcd Client),"
                + " but was " + (tlsCa != null ? "\"" + tlsCa + "\"" : "set"));
      }
      if (user != null || password != null) {
        throw new IllegalArgumentException(
            "credentials must not be set together with client (set them on that jetcd Client),"
                + " but was user " + (user == null ? "null" : "\"" + user + "\""));
      }
    }

    private EtcdClientFactory.Trust trust() {
      if (tlsJvmDefaultTrust) {
        return EtcdClientFactory.jvmDefaultTrust();
      }
      return tlsCa == null ? null : EtcdClientFactory.trustFrom(tlsCa, "tls caCertificate");
    }

    private EtcdClientFactory.ClientKey clientKey() {
      if (tlsCertificateChain == null && tlsPrivateKey == null) {
        return null;
      }
      return EtcdClientFactory.clientKeyFrom(tlsCertificateChain, tlsPrivateKey, "tlsClientCertificate");
    }

    private String authority() {
      if (tlsAuthority != null
          && (tlsAuthority.isBlank() || tlsAuthority.contains("/") || tlsAuthority.contains(" "))) {
        throw new IllegalArgumentException(
            "tlsAuthority must be a host name such as etcd.example.com, but was \"" + tlsAuthority + "\"");
      }
      return tlsAuthority;
    }

    private String user() {
      if (password != null && user == null || user != null && user.isBlank()) {
        throw new IllegalArgumentException(
            "credentials user must be a non-blank etcd user name, but was "
                + (user == null ? "null" : "\"" + user + "\""));
      }
      return user;
    }

    private char[] password() {
      if (user != null && (password == null || password.length == 0)) {
        throw new IllegalArgumentException(
            "credentials password must not be empty (etcd 3.4 users always have one), but was "
                + (password == null ? "null" : "empty") + " for user \"" + user + "\"");
      }
      return password == null ? null : password.clone();
    }
  }
}
