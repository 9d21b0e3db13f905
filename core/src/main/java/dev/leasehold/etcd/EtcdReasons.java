package dev.leasehold.etcd;

import dev.leasehold.runtime.ConfigurationErrors;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.net.ConnectException;
import java.security.cert.CertificateException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * EtcdReasons turns a failed jetcd call into the reason an operator reads in the log: what
 * etcd refused (authentication, a permission on the election key, the TLS handshake, the
 * connection) in words that name the user, the key and the setting to look at, followed by
 * etcd's or the JVM's own words in parentheses. Refusals only the operator can fix (wrong or
 * missing credentials, no permission on the key, a certificate not trusted, not issued for the
 * host, expired or refused) are named {@link ConfigurationErrors configuration errors}; a
 * handshake the server merely closed, an expired auth token and every connection failure are
 * not, since they pass by themselves.
 *
 * <p>Immutable and thread-safe.
 */
final class EtcdReasons {
  private static final int MAX_DEPTH = 12;

  private final String key;
  private final EtcdClientFactory settings;
  private final String user;

  /**
   * EtcdReasons describes failures of calls on {@code key} by a client made from
   * {@code settings}, or by a user's own client (whose settings it cannot know) when null.
   */
  EtcdReasons(String key, EtcdClientFactory settings) {
    this.key = key;
    this.settings = settings;
    this.user = settings == null ? null : settings.user();
  }

  /**
   * describe names why a call failed; {@code action} is what the call did to the key ("read",
   * "write", "watch"), or null when it did something else (a lease call).
   */
  String describe(Throwable failure, String action) {
    Throwable t = unwrap(failure);
    if (t instanceof TimeoutException) {
      return "timed out";
    }
    List<Throwable> chain = chain(t);
    String tlsReason = tlsReason(chain);
    if (tlsReason != null) {
      return tlsReason;
    }
    String words = etcdWords(chain);
    Status.Code code = code(chain);
    String all = words == null ? "" : words;
    if (code == Status.Code.PERMISSION_DENIED || all.contains("permission denied")) {
      String who =
          user != null ? "user '" + user + "'"
              : settings != null ? "this client (no credentials set)" : "this client";
      String what = action == null ? "use " + key : action + " " + key;
      return ConfigurationErrors.named("permission denied: " + who + " may not " + what + etcd(words));
    }
    if (all.contains("authentication failed")) {
      return ConfigurationErrors.named("authentication failed: etcd refused "
          + (user == null ? "the credentials" : "user '" + user + "'")
          + " (wrong user name or password; check credentials(...))" + etcd(words));
    }
    if (all.contains("user name is empty")) {
      return ConfigurationErrors.named(
          "authentication required: etcd has auth enabled and no credentials are set"
              + " (credentials(user, password))" + etcd(words));
    }
    if (all.contains("invalid auth token") || all.contains("auth store is old")) {
      return "authentication failed: etcd no longer accepts the auth token (it expired, or etcd"
          + " restarted); jetcd authenticates again on the next call" + etcd(words);
    }
    if (code == Status.Code.UNAUTHENTICATED) {
      return "authentication failed" + (user == null ? "" : " for user '" + user + "'")
          + etcd(words);
    }
    ConnectException refused = find(chain, ConnectException.class);
    if (refused != null) {
      return "unreachable: " + firstLine(refused.getMessage()).toLowerCase(Locale.ROOT);
    }
    if (all.contains("no leader")) {
      return "no leader: etcd has no raft leader" + etcd(words);
    }
    if (code == Status.Code.UNAVAILABLE && settings != null && !settings.usesTls()
        && all.contains("Network closed")) {
      return "unavailable: etcd closed the connection; if it serves TLS, use https:// endpoints"
          + " and tls(...)" + etcd(words);
    }
    if (code != null && code != Status.Code.UNKNOWN) {
      String name = code.name().toLowerCase(Locale.ROOT).replace('_', ' ');
      return name + (words == null ? "" : ": " + words) + cause(chain);
    }
    return t.getClass().getSimpleName() + ": " + firstLine(t.getMessage());
  }

  /** tlsReason is the reason when a TLS handshake failed anywhere in the chain, else null. */
  private String tlsReason(List<Throwable> chain) {
    Throwable ssl = null;
    StringBuilder text = new StringBuilder();
    for (Throwable c : chain) {
      boolean tlsKind =
          c instanceof SSLException || c instanceof CertificateException
              || c instanceof CertPathBuilderException || c instanceof CertPathValidatorException
              || c.getClass().getSimpleName().equals("NotSslRecordException");
      if (tlsKind && ssl == null) {
        ssl = c;
      }
      text.append(' ').append(c.getMessage());
    }
    String all = text.toString();
    boolean closedInHandshake =
        all.contains("TLS negotiation") || all.contains("SSL/TLS handshake was in progress")
            || all.contains("not an SSL/TLS record");
    if (ssl == null && !closedInHandshake) {
      return null;
    }
    String detail = ssl == null ? "" : " (" + innermost(ssl) + ")";
    if (all.contains("PKIX path") || all.contains("valid certification path")) {
      String trusted =
          settings == null ? "the client's trust"
              : settings.trustsJvmDefaults() ? "the JVM's default trust" : "tls(...)";
      return ConfigurationErrors.named(
          "TLS handshake failed: the server's certificate is not trusted, no CA in " + trusted
              + " signed it" + detail);
    }
    if (all.contains("No subject alternative") || all.contains("No name matching")) {
      return ConfigurationErrors.named(
          "TLS handshake failed: the server's certificate is not issued for the endpoint's"
              + " host; set tlsAuthority(...) to a name it carries" + detail);
    }
    if (all.contains("certificate_expired") || all.contains("NotAfter")
        || all.contains("validity check failed")) {
      return ConfigurationErrors.named("TLS handshake failed: a certificate has expired" + detail);
    }
    if (all.contains("bad_certificate") || all.contains("certificate_required")
        || all.contains("unknown_ca") || all.contains("certificate_unknown")) {
      return ConfigurationErrors.named(settings == null || settings.hasClientCertificate()
          ? "TLS handshake failed: etcd refused this client's certificate (is it signed by a CA"
              + " in etcd's --trusted-ca-file?)" + detail
          : "TLS handshake failed: etcd requires a client certificate (mTLS) and none is set;"
              + " use tlsClientCertificate(...)" + detail);
    }
    if (closedInHandshake) {
      return "TLS handshake failed: the server closed the connection during the handshake; does"
          + " this endpoint serve TLS?" + detail;
    }
    return "TLS handshake failed" + detail;
  }

  /**
   * isUnavailable tells whether the call failed {@code UNAVAILABLE}: the member it went to has
   * no leader, or its connection was refused or lost. Another member may well answer (see
   * Hedge).
   */
  static boolean isUnavailable(Throwable e) {
    List<Throwable> chain = chain(unwrap(e));
    for (Throwable c : chain) {
      if (c instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.UNAVAILABLE) {
        return true;
      }
    }
    return code(chain) == Status.Code.UNAVAILABLE;
  }

  static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** chain is the throwable, its causes and their suppressed throwables, without cycles. */
  private static List<Throwable> chain(Throwable t) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable c = t; c != null && out.size() < MAX_DEPTH && !out.contains(c);
        c = c.getCause()) {
      out.add(c);
      for (Throwable s : c.getSuppressed()) {
        if (out.size() < MAX_DEPTH && !out.contains(s)) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** code is the first gRPC status code in the chain that says more than UNKNOWN. */
  private static Status.Code code(List<Throwable> chain) {
    Status.Code found = null;
    for (Throwable c : chain) {
      Status s = statusOf(c);
      if (s != null && (found == null || found == Status.Code.UNKNOWN)) {
        found = s.getCode();
      }
    }
    return found;
  }

  /** etcdWords is the most specific description etcd or gRPC gave, without "etcdserver: ". */
  private static String etcdWords(List<Throwable> chain) {
    String words = null;
    for (Throwable c : chain) {
      String d = null;
      Status s = statusOf(c);
      if (s != null) {
        d = s.getDescription();
      } else if (c instanceof EtcdException) {
        d = c.getMessage();
      }
      if (d != null && !d.isBlank()) {
        // Later entries are causes: etcd's own answer sits under jetcd's and gRPC's wrapping.
        words = clean(d);
      }
    }
    return words;
  }

  private static Status statusOf(Throwable c) {
    if (c instanceof StatusRuntimeException e) {
      return e.getStatus();
    }
    if (c instanceof StatusException e) {
      return e.getStatus();
    }
    return null;
  }

  private static String clean(String d) {
    String s = firstLine(d);
    int desc = s.indexOf("desc = ");
    if (s.startsWith("rpc error:") && desc >= 0) {
      s = s.substring(desc + "desc = ".length());
    }
    return s.replace("etcdserver: ", "").trim();
  }

  private static String etcd(String words) {
    return words == null ? "" : " (etcd: " + words + ")";
  }

  private static String cause(List<Throwable> chain) {
    Throwable last = chain.get(chain.size() - 1);
    return statusOf(last) != null || chain.size() == 1 ? "" : " (" + innermost(last) + ")";
  }

  private static String innermost(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String m = c.getMessage() != null ? c.getMessage() : t.getMessage();
    return m == null ? c.getClass().getSimpleName() : firstLine(m);
  }

  private static <T> T find(List<Throwable> chain, Class<T> type) {
    for (Throwable c : chain) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }
}
