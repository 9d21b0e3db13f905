package dev.leasehold.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** etcd with --client-cert-auth: an elector with a client certificate leads; without one, or with a stranger's, never. */
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
}
