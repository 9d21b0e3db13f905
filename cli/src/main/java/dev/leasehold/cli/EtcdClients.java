package dev.leasehold.cli;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * EtcdClients makes the jetcd client of a command from its validated {@link StoreOptions}
 * (endpoints, TLS files, user), and waits for that client's calls, telling a refusal
 * ({@link Leasehold.ConfigurationException}) from no answer ({@link
 * Leasehold.StoreUnreachableException}).
 *
 * <p>Stateless and thread-safe.
 */
final class EtcdClients {
  private EtcdClients() {}

  /** build makes the client; it connects on the first call. */
  static Client build(StoreOptions o) {
    ClientBuilder b = Client.builder().endpoints(o.trimmed().toArray(String[]::new)).waitForReady(false);
    if (o.cacert != null) {
      try {
        b.sslContext(ssl -> {
          ssl.trustManager(o.cacert.toFile());
          if (o.cert != null) {
            ssl.keyManager(o.cert.toFile(), o.keyFile.toFile());
          }
        });
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalArgumentException("--tls-ca/--tls-cert/--tls-key cannot make a TLS context: " + e.getMessage(), e);
      }
    }
    if (o.user != null) {
      b.user(ByteSequence.from(o.user, StandardCharsets.UTF_8))
          .password(ByteSequence.from(new String(o.etcdPassword()), StandardCharsets.UTF_8));
    }
    return b.build();
  }

  /**
   * refusal tells whether a failed call was etcd refusing this client (credentials, a permission,
   * a certificate) rather than not answering: waiting will not change its answer.
   */
  static boolean refusal(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (t instanceof javax.net.ssl.SSLHandshakeException || t instanceof java.security.cert.CertificateException
          || m.contains("permission denied") || m.contains("authentication failed") || m.contains("user name is empty")) {
        return true;
      }
    }
    return false;
  }

  /**
   * await waits for {@code call} until {@code end} (System.nanoTime), naming {@code where} the
   * store is and {@code what} was asked in the failure.
   */
  static <T> T await(CompletableFuture<T> call, long end, String where, String what, String within) {
    try {
      return call.get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new Leasehold.StoreUnreachableException(where + " did not answer " + what + within, e);
    } catch (ExecutionException e) {
      if (refusal(e.getCause())) {
        throw new Leasehold.ConfigurationException(where + " refused " + what + ": " + e.getCause().getMessage(), e);
      }
      throw new Leasehold.StoreUnreachableException(where + " failed " + what + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Leasehold.StoreUnreachableException("interrupted during " + what, e);
    }
  }
}
