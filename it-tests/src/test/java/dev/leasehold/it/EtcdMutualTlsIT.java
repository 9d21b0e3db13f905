package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.LeaderElector;
import dev.leasehold.etcd.EtcdSession;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * etcd with --client-cert-auth: an elector or a session with a client certificate leads;
 * without one, or with a stranger's, never.
 */
class EtcdMutualTlsIT {
  static final EtcdTls TLS = SecureElection.certificates("mtls-it");
  static final EtcdTls OTHER = SecureElection.certificates("mtls-other-ca");

  @RegisterExtension
  static final EtcdClusterExtension ETCD =
      EtcdClusterExtension.members(1).configure(b -> b.tls(TLS).clientCertAuth(true));

  SecureElection election;
  String key;

  @BeforeEach
  void setUp(TestInfo info) {
    election = new SecureElection(ETCD.cluster());
    key = "/leasehold/mtls-it/" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() {
    election.close();
  }

  @Test
  void anElectorWithAClientCertificateElectsResignsAndClosesWithNothingLeft() throws Exception {
    election.leadsResignsAndCloses(election.elector("mtls-a", key,
        b -> b.tls(TLS.caCertificate()).tlsClientCertificate(TLS.clientCertificate(), TLS.clientKey())));
  }

  @Test
  void withoutAClientCertificateItNeverLeadsAndSaysOneIsRequired() throws Exception {
    election.refused(election.elector("no-cert", key, b -> b.tls(TLS.caCertificate())),
        "TLS handshake failed: etcd requires a client certificate (mTLS) and none is set;"
            + " use tlsClientCertificate(...)");
  }

  @Test
  void aClientCertificateFromAnotherCaIsRefused() throws Exception {
    election.refused(election.elector("stranger-cert", key,
            b -> b.tls(TLS.caCertificate()).tlsClientCertificate(OTHER.clientCertificate(), OTHER.clientKey())),
        "TLS handshake failed: etcd refused this client's certificate");
  }

  @Test
  void aSessionWithAClientCertificateElectsAndClosesWithNothingLeft() throws Exception {
    String prefix = key + "/";
    EtcdSession session = EtcdSession.builder()
        .endpoints(ETCD.cluster().clientEndpoints())
        .tls(TLS.caCertificate()).tlsClientCertificate(TLS.clientCertificate(), TLS.clientKey())
        .prefix(prefix).candidateId("mtls-session").leaseTtl(Duration.ofSeconds(3)).build();
    try (Client root = ETCD.cluster().rootClient()) {
      session.start();
      LeaderElector a = session.election("a");
      LeaderElector b = session.election("b");
      a.start();
      b.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> a.leadership().isPresent() && b.leadership().isPresent());
      assertEquals(2, keys(root, prefix), "both elections' keys");
      session.close();
      assertEquals(0, keys(root, prefix), "no key left");
      await().atMost(Duration.ofSeconds(10)).until(() -> ETCD.cluster().leaseIds().isEmpty());
    } finally {
      session.close();
    }
  }

  private static long keys(Client c, String prefix) throws Exception {
    return c.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
        GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount();
  }
}
