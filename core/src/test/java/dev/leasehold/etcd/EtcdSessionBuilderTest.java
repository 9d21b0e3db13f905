package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.ElectorConfig;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** EtcdSession.Builder takes the same connection options as EtcdLeaderElector.Builder, with the same checks. */
class EtcdSessionBuilderTest {
  private static final Path TLS = Path.of("src/test/resources/tls");
  private static final Path CA = TLS.resolve("ca.pem");
  private static final Path CLIENT = TLS.resolve("client.pem");
  private static final Path CLIENT_KEY = TLS.resolve("client.key");

  private static String error(EtcdSession.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  private static EtcdSession.Builder https() {
    return EtcdSession.builder().prefix("/p/").endpoints("https://127.0.0.1:2379");
  }

  @Test
  void httpsEndpointsNeedATrustChoice() {
    EtcdLeaderElector.Builder elector = EtcdLeaderElector.builder().electionKey("/p/").endpoints("https://127.0.0.1:2379");
    assertEquals(assertThrows(IllegalArgumentException.class, elector::build).getMessage(), error(https()));
  }

  @Test
  void aClientCertificateOrAuthorityNeedsTls() {
    assertEquals(
        "tls must be set with tls(caCertificate) or tlsJvmDefaultTrust() when tlsClientCertificate is,"
            + " but was not set",
        error(EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379")
            .tlsClientCertificate(CLIENT, CLIENT_KEY)));
    assertEquals(
        "tls must be set with tls(caCertificate) or tlsJvmDefaultTrust() when tlsAuthority is, but was not set",
        error(EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379").tlsAuthority("etcd")));
  }

  @Test
  void aBadAuthorityOrKeyIsNamed() {
    assertEquals(
        "tlsAuthority must be a host name such as etcd.example.com, but was \"etcd/x\"",
        error(https().tls(CA).tlsAuthority("etcd/x")));
    // The CA's file is no private key of the client's certificate.
    String wrongKey = error(https().tls(CA).tlsClientCertificate(CLIENT, CA));
    assertEquals(true, wrongKey.startsWith("tlsClientCertificate privateKey "), wrongKey);
  }

  @Test
  void tlsAndCredentialsAreRejectedWithAClientOfYourOwn() {
    Client own = Client.builder().endpoints("http://127.0.0.1:2379").build();
    try {
      assertEquals(
          "tls must not be set together with client (configure TLS on that jetcd Client), but was \"" + CA + "\"",
          error(EtcdSession.builder().prefix("/p/").client(own).tls(CA)));
      assertEquals(
          "credentials must not be set together with client (set them on that jetcd Client), but was user"
              + " \"elector\"",
          error(EtcdSession.builder().prefix("/p/").client(own).credentials("elector", "pw".toCharArray())));
      assertEquals(
          "endpoints must not be set together with client, but was [http://127.0.0.1:2379]",
          error(EtcdSession.builder().prefix("/p/").client(own).endpoints("http://127.0.0.1:2379")));
    } finally {
      own.close();
    }
  }

  private static String refusal(EtcdSession.Builder b) {
    return assertThrows(UnsupportedOperationException.class, b::build).getMessage();
  }

  private static final String WHY = " on an etcd session (its elections keep no queue of candidates to rank or"
      + " to hand over to; spread(true) and weight(int) place a session's elections), but was ";

  @Test
  void placementASessionCannotCarryIsRefusedNotIgnored() {
    EtcdSession.Builder plain = EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379");
    assertEquals("priority is not supported" + WHY + "10", refusal(plain.priority(10)));
    assertEquals("preemptAfter is not supported" + WHY + "30s",
        refusal(EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379")
            .preemptAfter(Duration.ofSeconds(30))));
    assertEquals("healthCheck needs spread(true) on an etcd session (an unhealthy session yields by moving its"
            + " elections to the healthy members of its fleet; without spreading it has none to move them to), but"
            + " was set",
        refusal(EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379").healthCheck(() -> true)));
    // Spreading takes it (its priority and preemption stay refused).
    EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379").spread(true).healthCheck(() -> true)
        .build().close();
    assertEquals("priority is not supported" + WHY + "10",
        refusal(EtcdSession.builder().prefix("/p/").endpoints("http://127.0.0.1:2379").spread(true)
            .healthCheck(() -> true).priority(10)));
    // The same through the two-value factory.
    ElectorConfig prioritized = ElectorConfig.builder().electionKey("/p/").priority(3).build();
    assertEquals("priority is not supported" + WHY + "3",
        assertThrows(UnsupportedOperationException.class,
            () -> EtcdSession.of(prioritized, EtcdSettings.builder().endpoints("http://127.0.0.1:2379").build()))
            .getMessage());
  }
}
