package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorConfig;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EtcdLeaderElectorBuilderTest {
  private static final Path TLS = Path.of("src/test/resources/tls");
  private static final Path CA = TLS.resolve("ca.pem");
  private static final Path CLIENT = TLS.resolve("client.pem");
  private static final Path CLIENT_KEY = TLS.resolve("client.key");

  private static String error(EtcdLeaderElector.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  private static EtcdLeaderElector.Builder https() {
    return EtcdLeaderElector.builder().electionKey("/k").endpoints("https://127.0.0.1:2379");
  }

  @Test
  void missingEndpointsAreRejected() {
    assertEquals(
        "endpoints must name at least one etcd URL such as http://127.0.0.1:2379 (or set client),"
            + " but was null",
        error(EtcdLeaderElector.builder().electionKey("/k")));
  }

  @Test
  void malformedEndpointIsRejectedWithItsIndexAndValue() {
    assertEquals(
        "endpoints[1] must be a URL like http://127.0.0.1:2379 (no port), but was \"http://h\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("http://a:1", "http://h")));
    assertEquals(
        "endpoints[0] must be a URL like http://127.0.0.1:2379 (scheme must be http or https),"
            + " but was \"127.0.0.1:2379\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("127.0.0.1:2379")));
  }

  @Test
  void ttlMustBeWholeSecondsOfAtLeastOneAsEtcdGrantsThem() {
    EtcdLeaderElector.Builder b = EtcdLeaderElector.builder().electionKey("/k").endpoints("http://a:1");
    assertEquals("leaseTtl must be >= 1s, but was 200ms", error(b.leaseTtl(Duration.ofMillis(200))));
    assertEquals(
        "leaseTtl must be a whole number of seconds (etcd grants seconds), but was 1.5s",
        error(b.leaseTtl(Duration.ofMillis(1500))));
    // A neutral config that a MariaDB elector would take is refused here, by the same rule.
    ElectorConfig shared = ElectorConfig.builder().electionKey("/k").leaseTtl(Duration.ofMillis(2500)).build();
    assertEquals(
        "leaseTtl must be a whole number of seconds (etcd grants seconds), but was 2.5s",
        error(EtcdLeaderElector.builder().config(shared).endpoints("http://a:1")));
  }

  @Test
  void keyIsValidatedBeforeEndpoints() {
    assertEquals(
        "electionKey must be a non-blank string, but was \"\"",
        error(EtcdLeaderElector.builder().electionKey("").endpoints("http://a:1")));
  }

  @Test
  void httpsWithoutTlsSettingsIsRejectedRatherThanDialledInPlaintext() {
    assertEquals(
        "tls must be set for https:// endpoints, with tls(caCertificate) or tlsJvmDefaultTrust(),"
            + " but was not set (endpoints[0] is \"https://127.0.0.1:2379\")",
        error(https()));
  }

  @Test
  void httpWithTlsSettingsIsRejected() {
    assertEquals(
        "endpoints[0] must be https:// when TLS is set (an http:// endpoint would be dialled in"
            + " plaintext), but was \"http://127.0.0.1:2379\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("http://127.0.0.1:2379")
            .tls(CA)));
  }

  @Test
  void mixedSchemesAreRejected() {
    assertEquals(
        "endpoints must all be http:// or all https:// (one TLS setting covers every endpoint),"
            + " but endpoints[1] is \"http://b:2\" and endpoints[0] is \"https://a:1\"",
        error(EtcdLeaderElector.builder().electionKey("/k").endpoints("https://a:1", "http://b:2")
            .tls(CA)));
  }

  @Test
  void tlsWithACaFileOrTheJvmTrustBuildsWithoutConnecting() {
    https().tls(CA).build().close();
    https().tlsJvmDefaultTrust().build().close();
    https().tls(CA).tlsClientCertificate(CLIENT, CLIENT_KEY).tlsAuthority("etcd.test")
        .credentials("elector", "s3cret".toCharArray()).build().close();
  }

  @Test
  void aClientCertificateNeedsATrustChoice() {
    assertEquals(
        "tls must be set with tls(caCertificate) or tlsJvmDefaultTrust() when"
            + " tlsClientCertificate is, but was not set",
        error(https().tlsClientCertificate(CLIENT, CLIENT_KEY)));
  }

  @Test
  void aMissingCaFileIsNamedWithItsPath() {
    String e = error(https().tls(TLS.resolve("absent.pem")));
    assertEquals(
        "tls caCertificate must be a readable file (a PEM file of X.509 certificates), but was \""
            + TLS.resolve("absent.pem") + "\" (NoSuchFileException)", e);
  }

  @Test
  void aCaFileWithoutCertificatesIsRejected() {
    String e = error(https().tls(CLIENT_KEY));
    assertTrue(
        e.startsWith("tls caCertificate must be a PEM file of X.509 certificates, but \""
            + CLIENT_KEY + "\""), e);
  }

  @Test
  void aPkcs1KeyIsRejectedWithTheCommandThatConvertsIt() {
    String e = error(https().tls(CA).tlsClientCertificate(CLIENT, TLS.resolve("rsa-pkcs1.key")));
    assertEquals(
        "tlsClientCertificate privateKey must be an unencrypted PKCS#8 PEM key (BEGIN PRIVATE"
            + " KEY), but \"" + TLS.resolve("rsa-pkcs1.key") + "\" holds BEGIN RSA PRIVATE KEY;"
            + " convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8.pem", e);
  }

  @Test
  void anEncryptedKeyIsRejected() {
    String e = error(https().tls(CA).tlsClientCertificate(CLIENT, TLS.resolve("encrypted.key")));
    assertTrue(e.contains("holds BEGIN ENCRYPTED PRIVATE KEY"), e);
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRejected() {
    assertEquals(
        "tlsClientCertificate privateKey must be the key of the first certificate in"
            + " certificateChain (CN=elector), but was \"" + TLS.resolve("other.key")
            + "\", which does not match it",
        error(https().tls(CA).tlsClientCertificate(CLIENT, TLS.resolve("other.key"))));
  }

  @Test
  void credentialsNeedAUserAndAPassword() {
    assertEquals(
        "credentials user must be a non-blank etcd user name, but was \" \"",
        error(https().tls(CA).credentials(" ", "pw".toCharArray())));
    assertEquals(
        "credentials password must not be empty (etcd 3.4 users always have one), but was empty"
            + " for user \"elector\"",
        error(https().tls(CA).credentials("elector", new char[0])));
  }

  @Test
  void tlsAndCredentialsAreRejectedWithAClientOfYourOwn() {
    Client own = Client.builder().endpoints("http://127.0.0.1:2379").build();
    try {
      assertEquals(
          "tls must not be set together with client (configure TLS on that jetcd Client), but"
              + " was \"" + CA + "\"",
          error(EtcdLeaderElector.builder().electionKey("/k").client(own).tls(CA)));
      assertEquals(
          "credentials must not be set together with client (set them on that jetcd Client), but"
              + " was user \"elector\"",
          error(EtcdLeaderElector.builder().electionKey("/k").client(own)
              .credentials("elector", "pw".toCharArray())));
    } finally {
      own.close();
    }
  }

  @Test
  void aTlsAuthorityMustBeAHostName() {
    assertEquals(
        "tlsAuthority must be a host name such as etcd.example.com, but was \"https://etcd\"",
        error(https().tls(CA).tlsAuthority("https://etcd")));
  }
}
