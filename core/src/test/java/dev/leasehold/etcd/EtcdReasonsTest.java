package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * The reasons for etcd's refusals, from failures shaped like those jetcd 0.8.5 reported against
 * etcd 3.4.23 (the ITs check the same reasons against the real thing).
 */
class EtcdReasonsTest {
  private static final String PIPELINE =
      "\nChannel Pipeline: [SslHandler#0, ProtocolNegotiators$ClientTlsHandler#0]";
  private static final Path TLS = Path.of("src/test/resources/tls");

  private static EtcdClientFactory settings(boolean tls, boolean clientCert, String user) {
    return new EtcdClientFactory(
        List.of(tls ? "https://127.0.0.1:2379" : "http://127.0.0.1:2379"),
        tls ? EtcdClientFactory.trustFrom(TLS.resolve("ca.pem"), "tls") : null,
        clientCert
            ? EtcdClientFactory.clientKeyFrom(
                TLS.resolve("client.pem"), TLS.resolve("client.key"), "tlsClientCertificate")
            : null,
        null, user, user == null ? null : "pw".toCharArray(), Duration.ofSeconds(1));
  }

  private static final EtcdReasons TLS_AUTH =
      new EtcdReasons("/leasehold/k", settings(true, false, "elector"));

  private static Throwable failed(Status status) {
    return new ExecutionException(new StatusRuntimeException(status));
  }

  @Test
  void anUntrustedServerCertificateSaysSo() {
    Throwable e = failed(Status.UNAVAILABLE.withDescription("io exception" + PIPELINE).withCause(
        new SSLHandshakeException("PKIX path building failed: sun.security.provider.certpath"
            + ".SunCertPathBuilderException: unable to find valid certification path to"
            + " requested target")));
    assertEquals(
        "configuration error: "
            + "TLS handshake failed: the server's certificate is not trusted, no CA in tls(...) signed"
            + " it (PKIX path building failed: sun.security.provider.certpath"
            + ".SunCertPathBuilderException: unable to find valid certification path to requested"
            + " target)",
        TLS_AUTH.describe(e, "read"));
  }

  @Test
  void aMissingClientCertificateIsNamedAsSuch() {
    Throwable e = failed(Status.UNAVAILABLE.withDescription("ssl exception").withCause(
        new RuntimeException("javax.net.ssl.SSLHandshakeException: Received fatal alert:"
            + " bad_certificate", new SSLHandshakeException("Received fatal alert: bad_certificate"))));
    assertEquals(
        "configuration error: "
            + "TLS handshake failed: etcd requires a client certificate (mTLS) and none is set; use"
            + " tlsClientCertificate(...) (Received fatal alert: bad_certificate)",
        TLS_AUTH.describe(e, "read"));
    assertEquals(
        "configuration error: "
            + "TLS handshake failed: etcd refused this client's certificate (is it signed by a CA in"
            + " etcd's --trusted-ca-file?) (Received fatal alert: bad_certificate)",
        new EtcdReasons("/k", settings(true, true, null)).describe(e, "read"));
  }

  @Test
  void aPlaintextServerBehindAnHttpsEndpointFailsTheHandshake() {
    ClosedChannelException closed = new ClosedChannelException();
    closed.addSuppressed(
        new SSLHandshakeException("Connection closed while SSL/TLS handshake was in progress"));
    Throwable e = failed(Status.UNAVAILABLE
        .withDescription("Connection closed while performing TLS negotiation" + PIPELINE)
        .withCause(closed));
    assertEquals(
        "TLS handshake failed: the server closed the connection during the handshake; does this"
            + " endpoint serve TLS? (Connection closed while SSL/TLS handshake was in progress)",
        TLS_AUTH.describe(e, "read"));
  }

  @Test
  void aWrongPasswordIsAnAuthenticationFailureNamingTheUser() {
    Throwable e = failed(Status.UNAUTHENTICATED.withCause(new StatusRuntimeException(
        Status.INVALID_ARGUMENT.withDescription(
            "etcdserver: authentication failed, invalid user ID or password"))));
    assertEquals(
        "configuration error: "
            + "authentication failed: etcd refused user 'elector' (wrong user name or password; check"
            + " credentials(...)) (etcd: authentication failed, invalid user ID or password)",
        TLS_AUTH.describe(e, "read"));
  }

  @Test
  void anExpiredTokenAndMissingCredentialsAreNamed() {
    assertEquals(
        "authentication failed: etcd no longer accepts the auth token (it expired, or etcd"
            + " restarted); jetcd authenticates again on the next call (etcd: invalid auth token)",
        TLS_AUTH.describe(
            failed(Status.UNAUTHENTICATED.withDescription("etcdserver: invalid auth token")),
            "read"));
    assertEquals(
        "configuration error: "
            + "authentication required: etcd has auth enabled and no credentials are set"
            + " (credentials(user, password)) (etcd: user name is empty)",
        new EtcdReasons("/k", settings(true, false, null)).describe(
            failed(Status.INVALID_ARGUMENT.withDescription("etcdserver: user name is empty")),
            "read"));
  }

  @Test
  void permissionDeniedNamesTheUserTheActionAndTheKey() {
    assertEquals(
        "configuration error: "
            + "permission denied: user 'elector' may not write /leasehold/k (etcd: permission denied)",
        TLS_AUTH.describe(
            failed(Status.PERMISSION_DENIED.withDescription("etcdserver: permission denied")),
            "write"));
    // A watch is cancelled with etcd's words in an EtcdException.
    assertEquals(
        "configuration error: "
            + "permission denied: user 'elector' may not watch /leasehold/k (etcd: permission denied)",
        TLS_AUTH.describe(
            EtcdExceptionFactory.newEtcdException(
                ErrorCode.CANCELLED,
                "rpc error: code = PermissionDenied desc = etcdserver: permission denied"),
            "watch"));
  }

  @Test
  void connectionTroubleKeepsItsUsualWords() {
    EtcdReasons plain = new EtcdReasons("/k", settings(false, false, null));
    assertEquals(
        "unreachable: connection refused: /127.0.0.1:23799",
        plain.describe(failed(Status.UNAVAILABLE.withDescription("io exception")
            .withCause(new ConnectException("Connection refused: /127.0.0.1:23799"))), "read"));
    assertEquals(
        "unavailable: etcd closed the connection; if it serves TLS, use https:// endpoints and"
            + " tls(...) (etcd: Network closed for unknown reason)",
        plain.describe(failed(
            Status.UNAVAILABLE.withDescription("Network closed for unknown reason")), "read"));
    assertEquals(
        "no leader: etcd has no raft leader (etcd: no leader)",
        plain.describe(
            failed(Status.UNAVAILABLE.withDescription("etcdserver: no leader")), "read"));
    assertEquals(
        "timed out", plain.describe(new CompletionException(new TimeoutException()), "read"));
    assertEquals(
        "IllegalStateException: closed", plain.describe(new IllegalStateException("closed"), null));
  }

  @Test
  void unavailableIsWhatAnotherMemberMayAnswer() {
    assertTrue(EtcdReasons.isUnavailable(
        failed(Status.UNAVAILABLE.withDescription("etcdserver: no leader"))));
    assertTrue(EtcdReasons.isUnavailable(new CompletionException(
        EtcdExceptionFactory.newEtcdException(ErrorCode.UNAVAILABLE, "etcdserver: no leader"))));
    assertTrue(EtcdReasons.isUnavailable(failed(Status.UNAVAILABLE.withDescription("io exception")
        .withCause(new ConnectException("Connection refused: /127.0.0.1:23799")))));
    assertFalse(EtcdReasons.isUnavailable(
        failed(Status.NOT_FOUND.withDescription("etcdserver: requested lease not found"))));
    assertFalse(EtcdReasons.isUnavailable(failed(Status.DEADLINE_EXCEEDED)));
    assertFalse(EtcdReasons.isUnavailable(
        failed(Status.PERMISSION_DENIED.withDescription("etcdserver: permission denied"))));
  }
}
