package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * EtcdClientSettings is how an etcd builder reaches etcd: endpoints (with TLS and
 * credentials), or a jetcd client the caller made. {@link EtcdLeaderElector.Builder} and
 * {@link EtcdSession.Builder} both extend it, so the two take the same options with the same
 * checks and the same error messages.
 *
 * <p>Not thread-safe.
 *
 * @param <B> the concrete builder type
 */
public abstract class EtcdClientSettings<B extends EtcdClientSettings<B>> extends ElectorConfig.Settings<B> {
  private List<String> endpoints;
  private Client client;
  private Path tlsCa;
  private boolean tlsJvmDefaultTrust;
  private Path tlsCertificateChain;
  private Path tlsPrivateKey;
  private String tlsAuthority;
  private String user;
  private char[] password;

  EtcdClientSettings() {}

  @SuppressWarnings("unchecked")
  private B me() {
    return (B) this;
  }

  /**
   * endpoints sets the etcd client URLs, such as {@code http://127.0.0.1:2379}, or
   * {@code https://...} for every endpoint once TLS is set ({@link #tls(Path)}).
   */
  public B endpoints(String... endpoints) {
    return endpoints(endpoints == null ? null : Arrays.asList(endpoints));
  }

  /** endpoints sets the etcd client URLs. */
  public B endpoints(List<String> endpoints) {
    this.endpoints = endpoints == null ? null : new ArrayList<>(endpoints);
    return me();
  }

  /**
   * client uses an existing jetcd client instead of endpoints; it is never closed for you, and
   * its TLS and credentials are the client's own (the TLS and credential options must then
   * stay unset). Build it with {@code waitForReady(false)} to see why calls fail (a refused
   * handshake, say) instead of timeouts, and add {@link EtcdCallPolicy} for per-call
   * deadlines. If many electors share it, give it a small fixed executor ({@code
   * executorService(...)}): jetcd's default cached pool starts a thread per call in flight. A
   * client given cannot be replaced: after a long outage its channel reconnects
   * on gRPC's own backoff, which grows to two minutes, where an elector's own client
   * reconnects within {@code retryBackoffMax}.
   */
  public B client(Client client) {
    this.client = client;
    return me();
  }

  /**
   * tls makes every endpoint speak TLS and trust only the CA certificates in
   * {@code caCertificate}, a PEM file (several certificates may follow one another); the
   * server's certificate must also name the endpoint's host (or {@link #tlsAuthority}).
   * Replaces {@link #tlsJvmDefaultTrust()}. The file is read at build.
   */
  public B tls(Path caCertificate) {
    this.tlsCa = caCertificate;
    this.tlsJvmDefaultTrust = false;
    return me();
  }

  /**
   * tlsJvmDefaultTrust makes every endpoint speak TLS and trust the JVM's default CAs (its
   * {@code cacerts}, or {@code javax.net.ssl.trustStore}) instead of a file given to
   * {@link #tls(Path)}, which it replaces. It has to be chosen: https endpoints without it
   * or {@code tls(...)} are rejected, so that no trust is taken for granted.
   */
  public B tlsJvmDefaultTrust() {
    this.tlsJvmDefaultTrust = true;
    this.tlsCa = null;
    return me();
  }

  /**
   * tlsClientCertificate presents a client certificate for mutual TLS (etcd's
   * {@code --client-cert-auth}): {@code certificateChain} is a PEM file with the client's
   * certificate first, {@code privateKey} its unencrypted PKCS#8 PEM key
   * ({@code BEGIN PRIVATE KEY}). Needs {@link #tls(Path)} or {@link #tlsJvmDefaultTrust()};
   * the files are read, and the key checked against the certificate, at build.
   */
  public B tlsClientCertificate(Path certificateChain, Path privateKey) {
    this.tlsCertificateChain = certificateChain;
    this.tlsPrivateKey = privateKey;
    return me();
  }

  /**
   * tlsAuthority sets the host name the server's certificate must carry, for every endpoint
   * (by default each endpoint's own host); for certificates issued for a name other than the
   * one dialled. Needs TLS.
   */
  public B tlsAuthority(String authority) {
    this.tlsAuthority = authority;
    return me();
  }

  /**
   * credentials authenticates to etcd (when etcd runs with {@code auth enable}) as
   * {@code user}; the password is copied at this call, so the caller may clear its array,
   * and kept in memory as UTF-8 bytes for the client's lifetime, because jetcd
   * authenticates again whenever etcd drops the token (after an etcd restart, say). Over
   * {@code http://} endpoints the password and token cross the network in clear.
   */
  public B credentials(String user, char[] password) {
    this.user = user;
    this.password = password == null ? null : password.clone();
    return me();
  }

  /** givenClient is the caller's client, or null when the builder makes its own. */
  Client givenClient() {
    return client;
  }

  /**
   * check validates the combination: with a client, no endpoint, TLS or credential option may
   * be set; a client certificate or authority needs TLS.
   *
   * @throws IllegalArgumentException naming the option and its value
   */
  void check() {
    if (client != null) {
      rejectWithClient();
    }
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

  /**
   * factory validates the endpoints, reads the TLS files and checks the credentials, and
   * returns the factory of the builder's own clients; call after {@link #check()}, without a
   * given client.
   */
  EtcdClientFactory factory(Duration rpcTimeout) {
    List<String> urls = EtcdEndpoints.validate(endpoints, tlsSet());
    return new EtcdClientFactory(urls, trust(), clientKey(), authority(), user(), password(), rpcTimeout);
  }

  private boolean tlsSet() {
    return tlsCa != null || tlsJvmDefaultTrust;
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
    return password;
  }
}
