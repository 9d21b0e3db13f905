package dev.leasehold.it;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdCluster runs a local etcd cluster as child processes on 127.0.0.1, one process per {@link EtcdMember}.
 *
 * <p>Thread-safe: the member list is fixed at start, member operations are synchronized per member, and
 * {@link #close()} is idempotent and may race with any other call.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EtcdCluster.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(30);
    // Short on purpose: the data is deleted anyway, and a clean etcd exits within milliseconds of SIGTERM.
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 15;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final DateTimeFormatter LOG_DIR_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

    private final String name;
    private final int electionTimeoutMillis;
    private final int heartbeatMillis;
    private final Path logDir;
    private final PeerRouter peerRouter;
    private final boolean preVote;
    private final EtcdTls tls;
    private final boolean clientCertAuth;
    private final String rootPassword;
    private final HttpClient http;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile List<EtcdMember> members = List.of();

    private EtcdCluster(String name, int electionTimeoutMillis, int heartbeatMillis, Path logDir,
            PeerRouter peerRouter, boolean preVote, EtcdTls tls, boolean clientCertAuth, String rootPassword) {
        this.name = name;
        this.tls = tls;
        this.clientCertAuth = clientCertAuth;
        this.rootPassword = rootPassword;
        this.http = tls == null ? EtcdHttp.PLAIN : EtcdHttp.client(tls.javaContext(clientCertAuth));
        this.preVote = preVote;
        this.electionTimeoutMillis = electionTimeoutMillis;
        this.heartbeatMillis = heartbeatMillis;
        this.logDir = logDir;
        this.peerRouter = peerRouter;
    }

    /**
     * PeerRouter decides where a member's peers dial it: given the member's name and the port it listens on for
     * peer traffic, it returns the port to advertise, typically that of a TCP proxy it started in front of the
     * member. Called once per member and start attempt, before any member launches; a retried start calls it
     * again for the same name with a new listen port. The cluster never closes what a router started.
     */
    @FunctionalInterface
    public interface PeerRouter {
        /** route returns the port peers should dial to reach {@code memberName}, listening on {@code listenPort}. */
        int route(String memberName, int listenPort);
    }

    /** builder returns a builder with 1 member named "etcd", 1000 ms election timeout and 100 ms heartbeat. */
    public static Builder builder() {
        return new Builder();
    }

    /** start launches a cluster of {@code members} members with default settings and waits for a leader. */
    public static EtcdCluster start(int members) {
        return builder().members(members).start();
    }

    /** name returns the cluster name, the prefix of every member name. */
    public String name() {
        return name;
    }

    /** members returns all members in index order, running or not. */
    public List<EtcdMember> members() {
        return members;
    }

    /** member returns the member with the zero-based {@code index}. */
    public EtcdMember member(int index) {
        return members.get(index);
    }

    /** clientEndpoints returns {@code http://127.0.0.1:PORT} (https with TLS) for each member, in member order. */
    public List<String> clientEndpoints() {
        return members.stream().map(EtcdMember::clientEndpoint).collect(Collectors.toUnmodifiableList());
    }

    /** clientEndpointsCsv returns the client endpoints joined by commas. */
    public String clientEndpointsCsv() {
        return String.join(",", clientEndpoints());
    }

    /** tls returns the certificates the members serve clients with, empty for a plaintext cluster. */
    public Optional<EtcdTls> tls() {
        return Optional.ofNullable(tls);
    }

    /**
     * clientBuilder returns a jetcd client builder for the members' endpoints, trusting the cluster's CA and presenting
     * its client certificate when the cluster requires one; without credentials.
     */
    public ClientBuilder clientBuilder() {
        ClientBuilder b = Client.builder().endpoints(clientEndpoints().toArray(String[]::new));
        return tls == null ? b : b.sslContext(tls.nettyContext(clientCertAuth));
    }

    /** rootClient returns a new jetcd client, authenticated as root when auth is enabled; the caller closes it. */
    public Client rootClient() {
        ClientBuilder b = clientBuilder();
        if (rootPassword != null) {
            b.user(EtcdAuth.bytes(EtcdAuth.ROOT)).password(EtcdAuth.bytes(rootPassword));
        }
        return b.build();
    }

    /** leaseIds lists the leases etcd holds, asked of the first running member over the HTTP gateway. */
    public List<Long> leaseIds() {
        EtcdMember member = members.stream().filter(m -> m.isRunning() && !m.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no running member to ask: " + this));
        return EtcdHttp.leaseIds(http, member.clientEndpoint(), Duration.ofSeconds(2));
    }

    /** electionTimeoutMillis returns the raft election timeout every member runs with. */
    public int electionTimeoutMillis() {
        return electionTimeoutMillis;
    }

    /** heartbeatMillis returns the raft heartbeat interval every member runs with. */
    public int heartbeatMillis() {
        return heartbeatMillis;
    }

    /** logDir returns the directory holding one log file per member. */
    public Path logDir() {
        return logDir;
    }

    /**
     * leader asks every running, unpaused member for its status and returns the one that reports itself leader.
     *
     * <p>Empty when no member answers within 500 ms or none is leader; if several claim leadership (a deposed leader
     * that has not noticed yet), the one with the highest raft term wins.
     */
    public Optional<EtcdMember> leader() {
        List<EtcdMember> asked = new ArrayList<>();
        List<CompletableFuture<Optional<EtcdHttp.Status>>> answers = new ArrayList<>();
        for (EtcdMember member : members) {
            if (member.isRunning() && !member.isPaused()) {
                asked.add(member);
                answers.add(EtcdHttp.statusAsync(http, member.clientEndpoint(), EtcdHttp.PROBE_TIMEOUT));
            }
        }
        EtcdMember best = null;
        long bestTerm = -1;
        for (int i = 0; i < asked.size(); i++) {
            Optional<EtcdHttp.Status> status = answers.get(i).join();
            if (status.isPresent() && status.get().isLeader() && status.get().raftTerm() > bestTerm) {
                best = asked.get(i);
                bestTerm = status.get().raftTerm();
            }
        }
        return Optional.ofNullable(best);
    }

    /** awaitLeader polls {@link #leader()} until a leader shows up, else throws IllegalStateException. */
    public EtcdMember awaitLeader(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Optional<EtcdMember> leader = leader();
            if (leader.isPresent()) {
                return leader.get();
            }
            if (!Instant.now().isBefore(deadline)) {
                throw new IllegalStateException("no etcd leader within " + timeout + ": " + describeMembers());
            }
            EtcdMember.sleepQuietly(100);
        }
    }

    /** awaitHealthy waits until every running, unpaused member answers /health with health=true. */
    public void awaitHealthy(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            if (allRunningHealthy()) {
                return;
            }
            if (!Instant.now().isBefore(deadline)) {
                throw new IllegalStateException("etcd not healthy within " + timeout + ": " + describeMembers());
            }
            EtcdMember.sleepQuietly(100);
        }
    }

    /**
     * restoreAll resumes paused members, starts stopped ones, and waits up to 30 s for a leader and full health.
     *
     * <p>Meant for a test's finally block or AfterEach, to hand the next test an intact cluster.
     */
    public void restoreAll() {
        for (EtcdMember member : members) {
            if (member.isPaused()) {
                member.resume();
            }
        }
        for (EtcdMember member : members) {
            if (!member.isRunning()) {
                member.start();
            }
        }
        awaitLeader(RESTORE_TIMEOUT);
        awaitHealthy(RESTORE_TIMEOUT);
    }

    /**
     * close kills every member (SIGCONT if paused, SIGTERM, SIGKILL after 1 s) and deletes the data dirs.
     *
     * <p>Idempotent and never throws; logs stay in {@link #logDir()} for post-mortems.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<EtcdMember> all = members;
        EtcdMember leader = null;
        try {
            leader = all.stream().filter(m -> m.isRunning() && !m.isPaused()).count() > 1 ? leader().orElse(null) : null;
        } catch (RuntimeException e) {
            log.debug("etcd cluster {}: no leader lookup before close: {}", name, e.toString());
        }
        // Followers first: a leader SIGTERM'ed together with them tries to hand leadership to a peer that is exiting
        // too and lingers for seconds, while a leader without live peers skips the hand-over and exits at once.
        EtcdMember last = leader;
        closeMembers(all.stream().filter(m -> m != last).collect(Collectors.toList()));
        if (last != null) {
            closeMembers(List.of(last));
        }
        log.info("etcd cluster {} closed; logs in {}", name, logDir);
    }

    /** toString returns the cluster name and its members' states. */
    @Override
    public String toString() {
        return "EtcdCluster[" + name + ", " + members + "]";
    }

    // ---- package-private, used by EtcdMember ----

    String clientScheme() {
        return tls == null ? "http" : "https";
    }

    HttpClient http() {
        return http;
    }

    /** True when this member plus the other running, unpaused members make a raft majority. */
    boolean quorumAvailableWith(EtcdMember self) {
        List<EtcdMember> all = members;
        long available = all.stream().filter(m -> m == self || (m.isRunning() && !m.isPaused())).count();
        return available >= all.size() / 2 + 1;
    }

    // ---- start-up ----

    private void launch(int memberCount) {
        Path binary = EtcdBinary.resolve();
        for (int attempt = 1; ; attempt++) {
            List<EtcdMember> attemptMembers = createMembers(binary, memberCount);
            members = attemptMembers;
            String problem;
            try {
                for (EtcdMember member : attemptMembers) {
                    member.launch("attempt " + attempt + ": start");
                }
                problem = awaitStarted(attemptMembers, Instant.now().plus(START_TIMEOUT));
            } catch (RuntimeException e) {
                closeMembers(attemptMembers);
                throw e;
            }
            if (problem == null) {
                log.info("etcd cluster {} up: {} (leader {}); logs in {}", name, clientEndpointsCsv(),
                        leader().map(EtcdMember::name).orElse("?"), logDir);
                return;
            }
            String report = problem + System.lineSeparator() + logTails(attemptMembers);
            // Decided before closing, which makes every member "exited".
            boolean exitedEarly = attemptMembers.stream().anyMatch(EtcdMember::hasExited);
            closeMembers(attemptMembers);
            if (!exitedEarly || attempt >= START_ATTEMPTS) {
                throw new IllegalStateException(
                        "etcd cluster " + name + " failed to start (attempt " + attempt + "): " + report);
            }
            // The usual early exit is "address already in use": a port picked free was grabbed before etcd bound it.
            log.warn("etcd cluster {}: attempt {} failed ({}), retrying with new ports", name, attempt, problem);
        }
    }

    /** Returns null once every member is healthy and one is leader, else a description of what went wrong. */
    private String awaitStarted(List<EtcdMember> attemptMembers, Instant deadline) {
        while (true) {
            for (EtcdMember member : attemptMembers) {
                if (member.hasExited()) {
                    return member.name() + " exited early";
                }
            }
            if (allRunningHealthy() && leader().isPresent()) {
                return null;
            }
            if (!Instant.now().isBefore(deadline)) {
                return "not healthy with a leader within " + START_TIMEOUT + ": " + describeMembers();
            }
            EtcdMember.sleepQuietly(100);
        }
    }

    private List<EtcdMember> createMembers(Path binary, int memberCount) {
        int[] ports = freePorts(2 * memberCount);
        String token = name + "-" + UUID.randomUUID();
        List<String> initialCluster = new ArrayList<>();
        List<PeerUrls> peers = new ArrayList<>();
        for (int i = 0; i < memberCount; i++) {
            PeerUrls peer = peerUrls(memberName(i), ports[2 * i + 1]);
            peers.add(peer);
            initialCluster.add(memberName(i) + "=" + peer.advertise());
        }
        List<EtcdMember> created = new ArrayList<>();
        for (int i = 0; i < memberCount; i++) {
            String memberName = memberName(i);
            int clientPort = ports[2 * i];
            int peerPort = ports[2 * i + 1];
            PeerUrls peer = peers.get(i);
            String clientUrl = clientScheme() + "://127.0.0.1:" + clientPort;
            Path dataDir;
            try {
                dataDir = Files.createTempDirectory("leasehold-etcd-" + memberName + "-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create data dir for " + memberName, e);
            }
            List<String> command = new ArrayList<>(List.of(
                    binary.toString(),
                    "--name", memberName,
                    "--data-dir", dataDir.toString(),
                    "--listen-client-urls", clientUrl,
                    "--advertise-client-urls", clientUrl,
                    "--listen-peer-urls", peer.listen(),
                    "--initial-advertise-peer-urls", peer.advertise(),
                    "--initial-cluster", String.join(",", initialCluster),
                    "--initial-cluster-state", "new",
                    "--initial-cluster-token", token,
                    "--heartbeat-interval", Integer.toString(heartbeatMillis),
                    "--election-timeout", Integer.toString(electionTimeoutMillis),
                    "--pre-vote=" + preVote,
                    // etcd 3.4 defaults to the deprecated capnslog logger; zap gives one JSON object per line.
                    "--logger", "zap",
                    "--log-outputs", "stderr"));
            if (tls != null) {
                command.addAll(tls.serverFlags(clientCertAuth));
            }
            created.add(new EtcdMember(this, memberName, clientPort, peerPort, dataDir,
                    logDir.resolve(memberName + ".log"), command));
        }
        return List.copyOf(created);
    }

    /**
     * Listen and advertise peer URLs of one member, computed only here.
     *
     * <p>Kept in one place on purpose: a chaos harness that routes raft traffic through TCP proxies needs members to
     * listen on their own port but advertise the proxy's: {@link Builder#peerRouter} does that here.
     */
    private PeerUrls peerUrls(String memberName, int peerPort) {
        String url = "http://127.0.0.1:" + peerPort;
        if (peerRouter == null) {
            return new PeerUrls(url, url);
        }
        return new PeerUrls(url, "http://127.0.0.1:" + peerRouter.route(memberName, peerPort));
    }

    private record PeerUrls(String listen, String advertise) {}

    private String memberName(int index) {
        return name + "-" + index;
    }

    // All sockets stay bound until every port is picked, so one cluster never gets the same port twice.
    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot pick free ports", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // The port is released either way once the socket object is gone.
                }
            }
        }
    }

    // ---- health and diagnostics ----

    private boolean allRunningHealthy() {
        List<CompletableFuture<EtcdHttp.Health>> answers = new ArrayList<>();
        for (EtcdMember member : members) {
            if (member.isRunning() && !member.isPaused()) {
                answers.add(EtcdHttp.healthAsync(http, member.clientEndpoint(), EtcdHttp.PROBE_TIMEOUT));
            }
        }
        boolean healthy = true;
        for (CompletableFuture<EtcdHttp.Health> answer : answers) {
            healthy &= answer.join().healthy();
        }
        return healthy;
    }

    private String describeMembers() {
        List<EtcdMember> all = members;
        List<CompletableFuture<String>> lines = new ArrayList<>();
        for (EtcdMember member : all) {
            if (member.isRunning() && !member.isPaused()) {
                CompletableFuture<EtcdHttp.Health> health =
                        EtcdHttp.healthAsync(http, member.clientEndpoint(), EtcdHttp.PROBE_TIMEOUT);
                CompletableFuture<Optional<EtcdHttp.Status>> status =
                        EtcdHttp.statusAsync(http, member.clientEndpoint(), EtcdHttp.PROBE_TIMEOUT);
                lines.add(health.thenCombine(status, (h, s) -> member + " /health " + h + ", status "
                        + s.map(st -> "member " + st.memberId() + " leader " + st.leaderId() + " term "
                                + st.raftTerm()).orElse("no answer")));
            } else {
                lines.add(CompletableFuture.completedFuture(member.toString()));
            }
        }
        return lines.stream().map(CompletableFuture::join)
                .collect(Collectors.joining("; ", "[", "]")) + "; logs in " + logDir;
    }

    private static String logTails(List<EtcdMember> attemptMembers) {
        StringBuilder out = new StringBuilder();
        for (EtcdMember member : attemptMembers) {
            out.append("--- last ").append(LOG_TAIL_LINES).append(" lines of ").append(member.logFile())
                    .append(" ---").append(System.lineSeparator())
                    .append(member.logTail(LOG_TAIL_LINES)).append(System.lineSeparator());
        }
        return out.toString();
    }

    private static void closeMembers(List<EtcdMember> toClose) {
        for (EtcdMember member : toClose) {
            try {
                member.beginClose();
            } catch (RuntimeException e) {
                log.warn("{}: SIGTERM failed: {}", member.name(), e.toString());
            }
        }
        Instant deadline = Instant.now().plus(CLOSE_GRACE);
        for (EtcdMember member : toClose) {
            try {
                member.finishClose(deadline);
            } catch (RuntimeException e) {
                log.warn("{}: close failed: {}", member.name(), e.toString());
            }
        }
    }

    private static Path createLogDir(String name) {
        Path base = Path.of("target", "etcd-logs").toAbsolutePath();
        String stamp = name + "-" + LocalDateTime.now().format(LOG_DIR_TIME);
        try {
            Files.createDirectories(base);
            for (int suffix = 1; ; suffix++) {
                Path candidate = base.resolve(suffix == 1 ? stamp : stamp + "-" + suffix);
                try {
                    return Files.createDirectory(candidate);
                } catch (FileAlreadyExistsException e) {
                    // Two clusters with one name started in the same millisecond: take the next suffix.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create etcd log dir under " + base, e);
        }
    }

    /**
     * Builder configures an {@link EtcdCluster} before {@link #start()} launches it.
     *
     * <p>Not thread-safe: configure and start it from one thread.
     */
    public static final class Builder {
        private int members = 1;
        private String name = "etcd";
        private int electionTimeoutMillis = 1000;
        private Integer heartbeatMillis;
        private PeerRouter peerRouter;
        private boolean preVote;
        private EtcdTls tls;
        private boolean clientCertAuth;
        private String rootPassword;

        private Builder() {}

        /**
         * tls makes every member serve clients over https with the server certificate of {@code tls} (peers stay on
         * http); default none, plaintext.
         */
        public Builder tls(EtcdTls tls) {
            this.tls = tls;
            return this;
        }

        /** clientCertAuth makes members require a client certificate signed by the tls CA (mTLS); needs tls. */
        public Builder clientCertAuth(boolean clientCertAuth) {
            this.clientCertAuth = clientCertAuth;
            return this;
        }

        /** auth creates the root user with {@code rootPassword} and enables authentication once the cluster is up. */
        public Builder auth(String rootPassword) {
            if (rootPassword == null || rootPassword.isEmpty()) {
                throw new IllegalArgumentException("rootPassword must not be empty");
            }
            this.rootPassword = rootPassword;
            return this;
        }

        /**
         * preVote sets etcd's --pre-vote (default false, as in etcd 3.4; 3.5 turns it on): a member that was cut off
         * and comes back does not force a new election with its inflated term.
         */
        public Builder preVote(boolean preVote) {
            this.preVote = preVote;
            return this;
        }

        /**
         * peerRouter makes every member advertise the peer port the router returns instead of the one it listens
         * on, so that all raft and lease-forwarding traffic between members goes wherever the router sends it
         * (chaos tests: TCP proxies that can cut or blackhole links); default none, members dial each other
         * directly.
         */
        public Builder peerRouter(PeerRouter peerRouter) {
            this.peerRouter = peerRouter;
            return this;
        }

        /** members sets the number of etcd processes, at least 1; default 1. */
        public Builder members(int members) {
            if (members < 1) {
                throw new IllegalArgumentException("members must be >= 1: " + members);
            }
            this.members = members;
            return this;
        }

        /** name sets the cluster name used for member names and the log directory; default "etcd". */
        public Builder name(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("name must match " + NAME + ": " + name);
            }
            this.name = name;
            return this;
        }

        /** electionTimeoutMillis sets etcd's --election-timeout; default 1000. */
        public Builder electionTimeoutMillis(int electionTimeoutMillis) {
            if (electionTimeoutMillis < 1) {
                throw new IllegalArgumentException("electionTimeoutMillis must be >= 1: " + electionTimeoutMillis);
            }
            this.electionTimeoutMillis = electionTimeoutMillis;
            return this;
        }

        /**
         * heartbeatMillis sets etcd's --heartbeat-interval; default 100, or a tenth of a shorter election timeout.
         *
         * <p>etcd refuses to start unless the election timeout is at least five heartbeats.
         */
        public Builder heartbeatMillis(int heartbeatMillis) {
            if (heartbeatMillis < 1) {
                throw new IllegalArgumentException("heartbeatMillis must be >= 1: " + heartbeatMillis);
            }
            this.heartbeatMillis = heartbeatMillis;
            return this;
        }

        /** start launches the processes and waits up to 30 s for every member to be healthy and a leader. */
        public EtcdCluster start() {
            // Only an implicit default follows a shortened election timeout; an explicit heartbeat is respected.
            int heartbeat = heartbeatMillis != null
                    ? heartbeatMillis
                    : Math.max(1, Math.min(100, electionTimeoutMillis / 10));
            if (electionTimeoutMillis < 5 * heartbeat) {
                throw new IllegalArgumentException("etcd requires electionTimeoutMillis (" + electionTimeoutMillis
                        + ") >= 5 * heartbeatMillis (" + heartbeat + ")");
            }
            if (clientCertAuth && tls == null) {
                throw new IllegalArgumentException("clientCertAuth needs tls");
            }
            EtcdCluster cluster = new EtcdCluster(name, electionTimeoutMillis, heartbeat, createLogDir(name),
                    peerRouter, preVote, tls, clientCertAuth, rootPassword);
            cluster.launch(members);
            if (rootPassword != null) {
                try (Client client = cluster.clientBuilder().build()) {
                    EtcdAuth.enable(client, rootPassword);
                } catch (RuntimeException e) {
                    cluster.close();
                    throw e;
                }
            }
            return cluster;
        }
    }
}
