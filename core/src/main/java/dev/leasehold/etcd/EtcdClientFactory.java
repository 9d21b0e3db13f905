package dev.leasehold.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * EtcdClientFactory makes the jetcd {@link Client} of an elector built from endpoints, with the
 * TLS material and credentials the builder validated: PEM files are read and checked once, at
 * {@code build()}, and the client is made from what was read, at {@code start()}.
 *
 * <p>Immutable and thread-safe once made.
 */
final class EtcdClientFactory implements Supplier<Client> {
  private static final Pattern PEM_BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
  private static final String TO_PKCS8 =
      "convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8.pem";

  private final List<String> endpoints;
  private final Trust trust;
  private final ClientKey clientKey;
  private final String authority;
  private final String user;
  private final byte[] password;
  private final Duration rpcTimeout;

  /** Trust is the CAs a TLS client accepts: these certificates, or the JVM's defaults if none. */
  record Trust(List<X509Certificate> certificates) {}

  /** ClientKey is the client certificate chain and its private key, for mTLS. */
  record ClientKey(PrivateKey key, List<X509Certificate> chain) {}

  EtcdClientFactory(
      List<String> endpoints, Trust trust, ClientKey clientKey, String authority, String user,
      char[] password, Duration rpcTimeout) {
    this.endpoints = List.copyOf(endpoints);
    this.trust = trust;
    this.clientKey = clientKey;
    this.authority = authority;
    this.user = user;
    this.password = password == null ? null : utf8(password);
    this.rpcTimeout = rpcTimeout;
  }

  /** usesTls tells whether the client speaks TLS (every endpoint is https). */
  boolean usesTls() {
    return trust != null;
  }

  /** trustsJvmDefaults tells whether a TLS client trusts the JVM's default CAs, not given ones. */
  boolean trustsJvmDefaults() {
    return trust != null && trust.certificates().isEmpty();
  }

  /** hasClientCertificate tells whether the client presents a certificate (mTLS). */
  boolean hasClientCertificate() {
    return clientKey != null;
  }

  /** user is the etcd user the client authenticates as, or null without credentials. */
  String user() {
    return user;
  }

  @Override
  public Client get() {
    return get(null);
  }

  /**
   * get makes a client whose futures complete on {@code executor} (a cached pool of its own,
   * shut down when the client closes, when null). Either way its tasks run in the gRPC {@code
   * Context} of the thread that made the call, which carries a call's own deadline ({@link
   * CallDeadline}).
   */
  Client get(ExecutorService executor) {
    ClientBuilder b = connection();
    ExecutorService own = executor == null ? cachedPool() : null;
    b.executorService(new ContextExecutor(executor != null ? executor : own));
    // Fail fast instead of waiting for a connection: with jetcd's default (wait for ready) a
    // call to an etcd that refuses the connection or the TLS handshake hangs until the
    // elector's rpcTimeout, and the reason (refused, certificate not trusted) is lost.
    // One quick retry within the rpcTimeout still lets jetcd renew an expired auth token.
    long retryMillis = Math.max(1, rpcTimeout.toMillis() / 5);
    // Calls that hang are cancelled at their deadline instead of piling up on a hung member,
    // and a member without a leader says so at once (EtcdCallPolicy).
    b.interceptor(new EtcdCallPolicy(rpcTimeout));
    b.waitForReady(false)
        .retryMaxAttempts(1)
        .retryDelay(retryMillis)
        .retryMaxDelay(2 * retryMillis);
    Client client = b.build();
    return own == null ? client : new ClosingClient(client, own);
  }

  // jetcd's own default, a cached pool of daemon threads, which it would shut down itself.
  private static ExecutorService cachedPool() {
    AtomicInteger n = new AtomicInteger();
    return Executors.newCachedThreadPool(
        r -> {
          Thread t = new Thread(r, "jetcd-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** connection is {@link #connection(List, Trust, ClientKey, String, String, byte[])} of this factory's. */
  ClientBuilder connection() {
    return connection(endpoints, trust, clientKey, authority, user, password);
  }

  /**
   * connection is a jetcd builder with the endpoints, TLS material and credentials only, and
   * jetcd's defaults for everything else; {@code password} is UTF-8.
   */
  static ClientBuilder connection(
      List<String> endpoints, Trust trust, ClientKey clientKey, String authority, String user,
      byte[] password) {
    ClientBuilder b = Client.builder();
    if (authority != null) {
      // Before endpoints(): jetcd bakes the authority into the target it computes there.
      b.authority(authority);
    }
    b.endpoints(endpoints.toArray(String[]::new));
    if (trust != null) {
      try {
        b.sslContext(
            ssl -> {
              if (!trust.certificates().isEmpty()) {
                ssl.trustManager(trust.certificates().toArray(X509Certificate[]::new));
              }
              if (clientKey != null) {
                ssl.keyManager(clientKey.key(), clientKey.chain().toArray(X509Certificate[]::new));
              }
            });
      } catch (SSLException e) {
        throw new IllegalStateException("cannot make the TLS context for etcd: " + e, e);
      }
    }
    if (user != null) {
      b.user(ByteSequence.from(user, StandardCharsets.UTF_8)).password(ByteSequence.from(password));
    }
    return b;
  }

  /** trustFrom reads the CA certificates of {@code field} from a PEM file. */
  static Trust trustFrom(Path caFile, String field) {
    return new Trust(List.copyOf(certificates(caFile, field)));
  }

  /** jvmDefaultTrust trusts what the JVM trusts (its cacerts or javax.net.ssl.trustStore). */
  static Trust jvmDefaultTrust() {
    return new Trust(List.of());
  }

  /**
   * clientKeyFrom reads a certificate chain and its unencrypted PKCS#8 private key, and checks
   * that the key belongs to the chain's first certificate.
   */
  static ClientKey clientKeyFrom(Path chainFile, Path keyFile, String field) {
    List<X509Certificate> chain = certificates(chainFile, field + " certificateChain");
    PrivateKey key = privateKey(keyFile, field + " privateKey");
    if (!belongsTo(key, chain.get(0))) {
      throw new IllegalArgumentException(
          field + " privateKey must be the key of the first certificate in certificateChain ("
              + chain.get(0).getSubjectX500Principal().getName() + "), but was " + quote(keyFile)
              + ", which does not match it");
    }
    return new ClientKey(key, List.copyOf(chain));
  }

  private static List<X509Certificate> certificates(Path file, String field) {
    byte[] pem = read(file, field, "a PEM file of X.509 certificates");
    try (InputStream in = new java.io.ByteArrayInputStream(pem)) {
      List<X509Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
              .map(X509Certificate.class::cast)
              .toList();
      if (certs.isEmpty()) {
        throw new IllegalArgumentException(
            field + " must be a PEM file of X.509 certificates, but " + quote(file)
                + " holds none");
      }
      return certs;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          field + " must be a PEM file of X.509 certificates, but " + quote(file)
              + " does not parse (" + e.getMessage() + ")", e);
    }
  }

  private static PrivateKey privateKey(Path file, String field) {
    String text = new String(read(file, field, "a PEM private key"), StandardCharsets.US_ASCII);
    Matcher m = PEM_BLOCK.matcher(text);
    if (!m.find()) {
      throw new IllegalArgumentException(
          field + " must be an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY), but " + quote(file)
              + " holds no PEM block");
    }
    String type = m.group(1);
    if (!type.equals("PRIVATE KEY")) {
      throw new IllegalArgumentException(
          field + " must be an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY), but " + quote(file)
              + " holds BEGIN " + type + "; " + TO_PKCS8);
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(2).trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          field + " must be an unencrypted PKCS#8 PEM key, but " + quote(file)
              + " is not valid base64", e);
    }
    for (String algorithm : List.of("RSA", "EC", "EdDSA", "RSASSA-PSS")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException wrongAlgorithm) {
        // The next algorithm may fit; PKCS#8 names its own, but KeyFactory wants it up front.
      }
    }
    throw new IllegalArgumentException(
        field + " must be an RSA, EC or EdDSA PKCS#8 key, but " + quote(file)
            + " is none the JVM can read");
  }

  private static boolean belongsTo(PrivateKey key, X509Certificate cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "EdDSA", "Ed25519" -> "Ed25519";
          case "Ed448" -> "Ed448";
          default -> null;
        };
    if (algorithm == null) {
      return true; // No cheap check for this kind; the TLS handshake will tell.
    }
    try {
      byte[] probe = "leasehold key check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static byte[] read(Path file, String field, String what) {
    if (file == null) {
      throw new IllegalArgumentException(field + " must be " + what + ", but was null");
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          field + " must be a readable file (" + what + "), but was " + quote(file) + " ("
              + e.getClass().getSimpleName() + ")", e);
    }
  }

  static byte[] utf8(char[] chars) {
    ByteBuffer b = StandardCharsets.UTF_8.encode(CharBuffer.wrap(chars));
    byte[] out = Arrays.copyOfRange(b.array(), b.position(), b.limit());
    Arrays.fill(b.array(), (byte) 0);
    return out;
  }

  private static String quote(Path p) {
    return "\"" + p + "\"";
  }
}
