package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * EtcdConnection is how a builder reaches etcd: endpoints (with TLS and credentials) or a jetcd
 * client the caller made. {@link EtcdLeaderElector.Builder} and {@link EtcdSession.Builder}
 * both keep one, so that the two accept the same options with the same checks and the same
 * error messages; their public setters document each option.
 *
 * <p>Not thread-safe: owned by one builder.
 */
final class EtcdConnection {
  private List<String> endpoints;
  private Client client;
  private Path tlsCa;
  private boolean tlsJvmDefaultTrust;
  private Path tlsCertificateChain;
  private Path tlsPrivateKey;
  private String tlsAuthority;
  private String user;
  private char[] password;

  void endpoints(List<String> endpoints) {
    this.endpoints = endpoints == null ? null : new ArrayList<>(endpoints);
  }

  void client(Client client) {
    this.client = client;
  }

  void tls(Path caCertificate) {
    this.tlsCa = caCertificate;
    this.tlsJvmDefaultTrust = false;
  }

  void tlsJvmDefaultTrust() {
    this.tlsJvmDefaultTrust = true;
    this.tlsCa = null;
  }

  void tlsClientCertificate(Path certificateChain, Path privateKey) {
    this.tlsCertificateChain = certificateChain;
    this.tlsPrivateKey = privateKey;
  }

  void tlsAuthority(String authority) {
    this.tlsAuthority = authority;
  }

  void credentials(String user, char[] password) {
    this.user = user;
    this.password = password == null ? null : password.clone();
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
