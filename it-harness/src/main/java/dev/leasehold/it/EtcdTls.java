package dev.leasehold.it;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * EtcdTls is a test PKI made with the {@code openssl} command (Debian package openssl): a CA, a server certificate it
 * signed for 127.0.0.1 and localhost, and a client certificate it signed, all PEM with PKCS#8 keys, as an operator
 * would make them for etcd's {@code --cert-file}, {@code --key-file} and {@code --trusted-ca-file}.
 *
 * <p>Immutable and thread-safe once generated; the files stay until the directory is deleted.
 */
public final class EtcdTls {

    private static final long OPENSSL_TIMEOUT_SECONDS = 30;

    private final Path dir;
    private final String name;

    private EtcdTls(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    /**
     * generate makes a fresh CA named {@code name} and the certificates it signs, in {@code dir} (created if absent):
     * the server's carries subjectAltName IP:127.0.0.1 and DNS:localhost (and clientAuth, which etcd's own gateway
     * needs under {@code --client-cert-auth}), the client's CN is {@code client-<name>}.
     */
    public static EtcdTls generate(Path dir, String name) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        EtcdTls tls = new EtcdTls(dir, name);
        String ec = "ec";
        tls.openssl("req", "-x509", "-newkey", ec, "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=" + name + "-ca");
        tls.signed("server", "/CN=etcd-" + name,
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
        tls.signed("client", "/CN=client-" + name, "extendedKeyUsage=clientAuth\n");
        return tls;
    }

    /** name returns the name the CA was generated with. */
    public String name() {
        return name;
    }

    /** caCertificate returns the CA's PEM certificate: what clients trust and etcd checks client certificates by. */
    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    /** serverCertificate returns the server's PEM certificate, for etcd's --cert-file. */
    public Path serverCertificate() {
        return dir.resolve("server.crt");
    }

    /** serverKey returns the server's PKCS#8 PEM key, for etcd's --key-file. */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** clientCertificate returns the client's PEM certificate, for mutual TLS. */
    public Path clientCertificate() {
        return dir.resolve("client.crt");
    }

    /** clientKey returns the client's PKCS#8 PEM key. */
    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** serverFlags returns etcd's TLS flags for its client URLs; with client-cert auth every client needs a certificate. */
    List<String> serverFlags(boolean clientCertAuth) {
        List<String> flags = new ArrayList<>(List.of(
                "--cert-file", serverCertificate().toString(),
                "--key-file", serverKey().toString()));
        if (clientCertAuth) {
            flags.addAll(List.of("--client-cert-auth", "--trusted-ca-file", caCertificate().toString()));
        }
        return flags;
    }

    /** nettyContext returns a jetcd-ready TLS context trusting this CA, presenting the client certificate if asked. */
    public SslContext nettyContext(boolean withClientCertificate) {
        try {
            SslContextBuilder b = GrpcSslContexts.forClient().trustManager(caCertificate().toFile());
            if (withClientCertificate) {
                b.keyManager(clientCertificate().toFile(), clientKey().toFile());
            }
            return b.build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build a TLS context from " + dir, e);
        }
    }

    /** javaContext returns a JDK TLS context (for the launcher's HTTP probes) trusting this CA, with the client key. */
    SSLContext javaContext(boolean withClientCertificate) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificates(caCertificate()).get(0));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (withClientCertificate) {
                char[] none = new char[0];
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", privateKey(clientKey()), none,
                        certificates(clientCertificate()).toArray(Certificate[]::new));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, none);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a JDK TLS context from " + dir, e);
        }
    }

    /** toString names the CA and its directory. */
    @Override
    public String toString() {
        return "EtcdTls[" + name + " in " + dir + "]";
    }

    private void signed(String file, String subject, String extensions) {
        try {
            Files.writeString(dir.resolve(file + ".ext"), extensions, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ".ext", e);
        }
        openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", file + ".key", "-out", file + ".csr", "-subj", subject);
        openssl("x509", "-req", "-in", file + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", file + ".crt", "-days", "2", "-extfile", file + ".ext");
    }

    private void openssl(String... args) {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            p.getOutputStream().close();
            if (!p.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("openssl did not finish in " + OPENSSL_TIMEOUT_SECONDS + " s: " + command);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("openssl exited with " + p.exitValue() + ": " + String.join(" ", command)
                        + "; output in " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run openssl (install the Debian package openssl): " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running openssl", e);
        }
    }

    private static List<X509Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(X509Certificate.class::cast).toList();
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        String body = text.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }
}
