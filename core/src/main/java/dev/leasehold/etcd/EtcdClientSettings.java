package dev.leasehold.etcd;

import dev.leasehold.ElectorConfig;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * EtcdClientSettings is how an etcd builder reaches etcd: endpoints (with TLS and
 * credentials), or a jetcd client the caller made. {@link EtcdLeaderElector.Builder} and
 * {@link EtcdSession.Builder} both extend it, so the two take the same options; each one is
 * {@link EtcdSettings.Builder}'s, with the same checks and the same error messages, and {@link
 * #settings()} validates them into that value.
 *
 * <p>Not thread-safe.
 *
 * @param <B> the concrete builder type
 */
public abstract class EtcdClientSettings<B extends EtcdClientSettings<B>> extends ElectorConfig.Settings<B> {
  private final EtcdSettings.Builder etcd = EtcdSettings.builder();

  EtcdClientSettings() {}

  @SuppressWarnings("unchecked")
  private B me() {
    return (B) this;
  }

  /**
   * endpoints sets the etcd client URLs: {@link EtcdSettings.Builder#endpoints(String...)}.
   *
   * @param endpoints the URLs, such as {@code http://127.0.0.1:2379}
   * @return this builder, for chaining
   */
  public B endpoints(String... endpoints) {
    etcd.endpoints(endpoints);
    return me();
  }

  /**
   * endpoints sets the etcd client URLs: {@link EtcdSettings.Builder#endpoints(List)}.
   *
   * @param endpoints the URLs, such as {@code http://127.0.0.1:2379}
   * @return this builder, for chaining
   */
  public B endpoints(List<String> endpoints) {
    etcd.endpoints(endpoints);
    return me();
  }

  /**
   * client uses an existing jetcd client instead of endpoints: {@link EtcdSettings.Builder#client}.
   *
   * @param client the client to use; never closed by the elector
   * @return this builder, for chaining
   */
  public B client(Client client) {
    etcd.client(client);
    return me();
  }

  /**
   * tls trusts only the CA certificates of a PEM file: {@link EtcdSettings.Builder#tls}.
   *
   * @param caCertificate the PEM file of the CA certificates to trust, read at build
   * @return this builder, for chaining
   */
  public B tls(Path caCertificate) {
    etcd.tls(caCertificate);
    return me();
  }

  /**
   * tlsJvmDefaultTrust trusts the JVM's default CAs:
   * {@link EtcdSettings.Builder#tlsJvmDefaultTrust}.
   *
   * @return this builder, for chaining
   */
  public B tlsJvmDefaultTrust() {
    etcd.tlsJvmDefaultTrust();
    return me();
  }

  /**
   * tlsClientCertificate presents a client certificate for mutual TLS: {@link
   * EtcdSettings.Builder#tlsClientCertificate}.
   *
   * @param certificateChain the PEM file with the client's certificate first, read at build
   * @param privateKey the PEM file of the client's unencrypted PKCS#8 key, read at build
   * @return this builder, for chaining
   */
  public B tlsClientCertificate(Path certificateChain, Path privateKey) {
    etcd.tlsClientCertificate(certificateChain, privateKey);
    return me();
  }

  /**
   * tlsAuthority sets the host name the server's certificate must carry:
   * {@link EtcdSettings.Builder#tlsAuthority}.
   *
   * @param authority the host name to check the server's certificate against
   * @return this builder, for chaining
   */
  public B tlsAuthority(String authority) {
    etcd.tlsAuthority(authority);
    return me();
  }

  /**
   * credentials authenticates to etcd as {@code user}: {@link EtcdSettings.Builder#credentials}.
   *
   * @param user the etcd user
   * @param password the user's password; copied, so the caller may clear the array
   * @return this builder, for chaining
   */
  public B credentials(String user, char[] password) {
    etcd.credentials(user, password);
    return me();
  }

  /**
   * settings validates how to reach etcd, as set so far, into its value (reading the TLS files);
   * the builder stays usable, and later changes to it do not reach the value.
   *
   * @return the validated settings, independent of this builder
   * @throws IllegalArgumentException naming the option and its value
   */
  public EtcdSettings settings() {
    return etcd.build();
  }

  /** etcdConfig validates the neutral settings by etcd's rule for the lease TTL: whole seconds, at least 1 s. */
  final ElectorConfig etcdConfig() {
    return buildConfig(Duration.ofSeconds(1), Duration.ofSeconds(1), "etcd grants seconds");
  }

  /**
   * byEtcdRule checks the two values an elector or session is made of: a config made elsewhere
   * against etcd's rule for the lease TTL, with the same message a builder gives, and that the
   * settings are there.
   */
  static ElectorConfig byEtcdRule(ElectorConfig config, EtcdSettings settings) {
    if (config == null) {
      throw new IllegalArgumentException("config must be set, but was null");
    }
    ElectorConfig validated = EtcdLeaderElector.builder().config(config).etcdConfig();
    if (settings == null) {
      throw new IllegalArgumentException("settings must be set, but was null");
    }
    return validated;
  }
}
