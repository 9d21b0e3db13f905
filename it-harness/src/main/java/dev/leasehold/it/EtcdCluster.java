package dev.leasehold.it;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EtcdCluster runs a local etcd cluster as child processes on 127.0.0.1, one process per {@link EtcdMember}.
 *
 * <p>Thread-safe: the member list changes only by {@link #removeMember} and {@link #addMember}, which are synchronized
 * and publish a new immutable list; member operations are synchronized per member, and {@link #close()} is idempotent
 * and may race with any other call.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EtcdCluster.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(30);
    // Short on purpose: the data is deleted anyway, and a clean etcd exits within milliseconds of SIGTERM.
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 15;
    private static final Duration MEMBERSHIP_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final int electionTimeoutMillis;
    private final int heartbeatMillis;
    private final Path logDir;
    private final EtcdMemberFactory memberFactory;
    private final EtcdTls tls;
    private final boolean clientCertAuth;
    private final String rootPassword;
    private final HttpClient http;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile List<EtcdMember> members = List.of();
    // Names stay unique across membership changes: a joining member is <cluster>-<nextIndex>.
    private int nextIndex;

    EtcdCluster(String name, int electionTimeoutMillis, int heartbeatMillis, Path logDir,
            PeerRouter peerRouter, boolean preVote, EtcdTls tls, boolean clientCertAuth, String rootPassword) {
        this.name = name;
        this.tls = tls;
        this.clientCertAuth = clientCertAuth;
        this.rootPassword = rootPassword;
        this.http = tls == null ? EtcdHttp.PLAIN : EtcdHttp.client(tls.javaContext(clientCertAuth));
        this.electionTimeoutMillis = electionTimeoutMillis;
        this.heartbeatMillis = heartbeatMillis;
        this.logDir = logDir;
        this.memberFactory = new EtcdMemberFactory(name, electionTimeoutMillis, heartbeatMillis, logDir, peerRouter,
                preVote, tls, clientCertAuth);
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
    public static EtcdClusterBuilder builder() {
        return new EtcdClusterBuilder();
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
        return clientBuilder(members);
    }

    /** rootClient returns a new jetcd client, authenticated as root when auth is enabled; the caller closes it. */
    public Client rootClient() {
        return rootClient(members);
    }

    /**
     * removeMember removes {@code member} from the cluster as an operator would: etcd's MemberRemove, asked of the
     * other running members and retried for up to 30 s while etcd refuses it (no leader, a quorum not connected
     * long enough); then it ends the member's process and deletes its data dir. {@link #members()} no longer lists
     * it, and its logs stay.
     *
     * @param member a member of this cluster; may be the leader, or cut off from its peers
     * @return the position {@code member} had in {@link #members()}, for {@link #addMember}
     * @throws IllegalArgumentException if {@code member} is not a member now
     * @throws IllegalStateException if etcd did not accept the removal within 30 s
     */
    public synchronized int removeMember(EtcdMember member) {
        List<EtcdMember> now = members;
        int position = now.indexOf(member);
        if (position < 0) {
            throw new IllegalArgumentException(member.name() + " is not a member of " + this);
        }
        List<EtcdMember> others = now.stream().filter(m -> m != member && m.isRunning() && !m.isPaused()).toList();
        try (Client client = rootClient(others)) {
            EtcdMembership.remove(client, member.name(), MEMBERSHIP_TIMEOUT);
        }
        List<EtcdMember> rest = new ArrayList<>(now);
        rest.remove(position);
        members = List.copyOf(rest);
        closeMembers(List.of(member));
        log.info("etcd cluster {}: removed {}", name, member.name());
        return position;
    }

    /**
     * addMember adds a new member, {@code <cluster>-<n>} with n counting on from the last member ever made, at
     * {@code position} in {@link #members()}: etcd's MemberAdd with the peer URL it will advertise (through the peer
     * router, as every member's), asked of the running members and retried for up to 30 s while etcd refuses it
     * (it adds no member until its leader has been connected to every member for 5 s); then it starts the member
     * on fresh ports and a fresh data dir with {@code --initial-cluster-state existing}.
     *
     * @param position where the new member goes in {@link #members()}, 0 to its size
     * @return the new member, running and answering /health
     * @throws IllegalStateException if etcd did not accept the member within 30 s, or the member did not start
     */
    public synchronized EtcdMember addMember(int position) {
        List<EtcdMember> now = members;
        if (position < 0 || position > now.size()) {
            throw new IllegalArgumentException("position must be in [0, " + now.size() + "], but was " + position);
        }
        EtcdMember added;
        try (Client client = rootClient(now.stream().filter(m -> m.isRunning() && !m.isPaused()).toList())) {
            int index = nextIndex++;
            added = memberFactory.joining(this, EtcdBinary.resolve(), index,
                    peerUrl -> EtcdMembership.add(client, name + "-" + index, peerUrl, MEMBERSHIP_TIMEOUT));
        }
        List<EtcdMember> grown = new ArrayList<>(now);
        grown.add(position, added);
        // Listed before it starts, so that whoever tells members apart by process (peer proxies) knows it at once.
        members = List.copyOf(grown);
        added.startJoining();
        log.info("etcd cluster {}: added {}", name, added);
        return added;
    }

    private ClientBuilder clientBuilder(List<EtcdMember> via) {
        String[] endpoints = via.stream().map(EtcdMember::clientEndpoint).toArray(String[]::new);
        ClientBuilder b = Client.builder().endpoints(endpoints);
        return tls == null ? b : b.sslContext(tls.nettyContext(clientCertAuth));
    }

    private Client rootClient(List<EtcdMember> via) {
        if (via.isEmpty()) {
            throw new IllegalStateException("no running member to ask: " + this);
        }
        ClientBuilder b = clientBuilder(via);
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

    // ---- package-private, used by EtcdMember, EtcdMemberFactory and EtcdClusterBuilder ----

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

    void launch(int memberCount) {
        Path binary = EtcdBinary.resolve();
        for (int attempt = 1; ; attempt++) {
            List<EtcdMember> attemptMembers = memberFactory.create(this, binary, memberCount);
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
                nextIndex = memberCount;
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
}
