package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdLeaderElector;
import io.etcd.jetcd.Client;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An elector over https with a CA file: it leads; an untrusted or misnamed server, or a plaintext one, it refuses. */
class EtcdTlsIT {
  static final EtcdTls TLS = SecureElection.certificates("tls-it");
  static final EtcdTls OTHER = SecureElection.certificates("other-ca");

  @RegisterExtension
  static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1).configure(b -> b.tls(TLS));

  SecureElection election;
  String key;

  @BeforeEach
  void setUp(TestInfo info) {
    election = new SecureElection(ETCD.cluster());
    key = "/leasehold/tls-it/" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() {
    election.close();
  }

  @Test
  void anElectorOverHttpsTrustingTheCaElectsResignsAndClosesWithNothingLeft() throws Exception {
    election.leadsResignsAndCloses(
        election.elector("https-a", key, b -> b.tls(TLS.caCertificate())));
  }

  @Test
  void aServerCertificateFromAnotherCaIsRefusedAsNotTrusted() throws Exception {
    election.refused(
        election.elector("untrusted", key, b -> b.tls(OTHER.caCertificate())),
        "TLS handshake failed: the server's certificate is not trusted, no CA in tls(...) signed it");
  }

  @Test
  void theJvmDefaultTrustDoesNotTrustATestCa() throws Exception {
    election.refused(
        election.elector("jvm-trust", key, EtcdLeaderElector.Builder::tlsJvmDefaultTrust),
        "TLS handshake failed: the server's certificate is not trusted, no CA in the JVM's default trust");
  }

  @Test
  void tlsAuthorityNamesTheHostTheCertificateMustCarry() throws Exception {
    election.refused(
        election.elector("misnamed", key, b -> b.tls(TLS.caCertificate()).tlsAuthority("etcd.invalid")),
        "TLS handshake failed: the server's certificate is not issued for the endpoint's host");
    // The server certificate carries DNS:localhost besides IP:127.0.0.1.
    election.leadsResignsAndCloses(
        election.elector("by-name", key, b -> b.tls(TLS.caCertificate()).tlsAuthority("localhost")));
  }

  @Test
  void anHttpsEndpointOnAPlaintextEtcdFailsTheHandshakeAndNeverSpeaksPlaintext() throws Exception {
    try (EtcdCluster plain = EtcdCluster.builder().name("plaintext-for-tls-it").start();
        Client plainClient = plain.clientBuilder().build()) {
      String https = plain.clientEndpoints().get(0).replace("http://", "https://");
      SecureElection.Started s = election.elector("to-plaintext", key,
          b -> b.endpoints(https).tls(TLS.caCertificate()));
      await().atMost(SecureElection.WAIT).until(() -> s.events().has(Cause.STORE_UNAVAILABLE));
      await().atMost(SecureElection.WAIT).until(() -> election.capture().has(s.name(),
          "TLS handshake failed: the server closed the connection during the handshake; does this endpoint serve"
              + " TLS?"));
      await().during(SecureElection.STAYS_FOLLOWER).atMost(SecureElection.STAYS_FOLLOWER.plusSeconds(2))
          .until(() -> !s.elector().isLeader());
      assertFalse(s.events().has(Cause.ELECTED));
      // Had any request reached the plaintext etcd, it would have served it: it holds no key and no lease.
      assertEquals(0, plainClient.getKVClient().get(SecureElection.bytes(key)).get(5, TimeUnit.SECONDS).getCount());
      assertEquals(List.of(), plain.leaseIds());
      s.elector().close();
    }
  }

  @Test
  void theFirstBytesOnTheWireAreATlsClientHello() throws Exception {
    try (ServerSocket sniffer = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
      CompletableFuture<byte[]> firstBytes = CompletableFuture.supplyAsync(() -> {
        try (Socket s = sniffer.accept(); InputStream in = s.getInputStream()) {
          return in.readNBytes(3);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      election.elector("sniffed", key,
          b -> b.endpoints("https://127.0.0.1:" + sniffer.getLocalPort()).tls(TLS.caCertificate()));
      // A TLS record of type handshake (22), version 3.x; plaintext gRPC would begin "PRI * HTTP/2.0".
      byte[] head = firstBytes.get(20, TimeUnit.SECONDS);
      assertArrayEquals(new byte[] {0x16, 0x03}, new byte[] {head[0], head[1]},
          "first bytes " + Integer.toHexString(head[0] & 0xff) + " " + Integer.toHexString(head[1] & 0xff));
    }
  }
}
