package dev.leasehold.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * EtcdHttp probes etcd's HTTP endpoints without a JSON library, over the cluster's {@link HttpClient} (plaintext, or
 * TLS trusting the test CA); thread-safe because HttpClient is.
 */
final class EtcdHttp {

    static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    // HTTP/1.1 only: etcd multiplexes gRPC and HTTP on the client port, and an h2c upgrade attempt buys nothing.
    static final HttpClient PLAIN = client(null);

    private static final Pattern HEALTH = Pattern.compile("\"health\"\\s*:\\s*\"?(true|false)\"?");
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)\"?");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)\"?");
    private static final Pattern RAFT_TERM = Pattern.compile("\"raft_term\"\\s*:\\s*\"?(\\d+)\"?");
    private static final Pattern LEASE_ID = Pattern.compile("\"ID\"\\s*:\\s*\"?(\\d+)\"?");

    private EtcdHttp() {}

    /** client returns a probe client: plaintext when {@code tls} is null, else TLS with that context. */
    static HttpClient client(SSLContext tls) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PROBE_TIMEOUT);
        if (tls != null) {
            b.sslContext(tls);
        }
        return b.build();
    }

    /** Health is the outcome of one GET /health; {@code answered} is false when no HTTP response arrived. */
    record Health(boolean answered, boolean healthy, String detail) {
        @Override
        public String toString() {
            return answered ? (healthy ? "healthy" : "unhealthy(" + detail + ")") : "no answer(" + detail + ")";
        }
    }

    /** Status is what a member says about itself and the leader it knows of. */
    record Status(String memberId, String leaderId, long raftTerm) {
        boolean isLeader() {
            return memberId.equals(leaderId);
        }
    }

    static CompletableFuture<Health> healthAsync(HttpClient client, String endpoint, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint + "/health"))
                .timeout(timeout)
                .GET()
                .build();
        return sendWithRetry(client, request).handle((response, failure) -> {
            if (failure != null) {
                return new Health(false, false, describe(failure));
            }
            String body = response.body();
            Matcher matcher = HEALTH.matcher(body);
            boolean healthy = response.statusCode() == 200 && matcher.find() && matcher.group(1).equals("true");
            return new Health(true, healthy, "HTTP " + response.statusCode() + " " + abbreviate(body));
        });
    }

    static Health health(HttpClient client, String endpoint, Duration timeout) {
        return healthAsync(client, endpoint, timeout).join();
    }

    /** leaseIds lists the leases etcd holds (LeaseLeases needs no auth in etcd 3.4), or throws when none answers. */
    static List<Long> leaseIds(HttpClient client, String endpoint, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint + "/v3/lease/leases"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        HttpResponse<String> response = sendWithRetry(client, request).join();
        if (response.statusCode() != 200) {
            throw new IllegalStateException(endpoint + "/v3/lease/leases answered HTTP " + response.statusCode() + ": "
                    + abbreviate(response.body()));
        }
        List<Long> ids = new ArrayList<>();
        Matcher m = LEASE_ID.matcher(response.body());
        while (m.find()) {
            ids.add(Long.parseLong(m.group(1)));
        }
        return ids;
    }

    static CompletableFuture<Optional<Status>> statusAsync(HttpClient client, String endpoint, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint + "/v3/maintenance/status"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        return sendWithRetry(client, request).handle((response, failure) -> {
            if (failure != null || response.statusCode() != 200) {
                return Optional.empty();
            }
            String body = response.body();
            Matcher member = MEMBER_ID.matcher(body);
            Matcher leader = LEADER.matcher(body);
            Matcher term = RAFT_TERM.matcher(body);
            if (!member.find() || !leader.find()) {
                return Optional.empty();
            }
            long raftTerm = term.find() ? Long.parseLong(term.group(1)) : 0L;
            return Optional.of(new Status(member.group(1), leader.group(1), raftTerm));
        });
    }

    static boolean listens(int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // A pooled keep-alive connection to a member that was killed and restarted fails once with a reset;
    // retrying once on a fresh connection keeps single-shot probes like leader() from reporting a false "no answer".
    private static CompletableFuture<HttpResponse<String>> sendWithRetry(HttpClient client, HttpRequest request) {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture(response);
                    }
                    Throwable cause = unwrap(failure);
                    if (cause instanceof IOException && !(cause instanceof HttpTimeoutException)
                            && !(cause instanceof java.net.ConnectException)) {
                        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
                    }
                    return CompletableFuture.<HttpResponse<String>>failedFuture(cause);
                })
                .thenCompose(future -> future);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String describe(Throwable failure) {
        Throwable cause = unwrap(failure);
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static String abbreviate(String body) {
        String flat = body.replaceAll("\\s+", " ").trim();
        return flat.length() <= 120 ? flat : flat.substring(0, 120) + "...";
    }
}
