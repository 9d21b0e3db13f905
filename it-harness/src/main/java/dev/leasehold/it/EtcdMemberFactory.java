package dev.leasehold.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * EtcdMemberFactory creates the {@link EtcdMember}s of one start attempt of an {@link EtcdCluster}, and those that
 * join it later: it picks free client and peer ports, a data dir and a log file per member, and builds each member's
 * etcd command line.
 *
 * <p>Thread-safe: its settings are fixed at construction and every {@link #create} call works on its own ports and
 * directories.
 */
final class EtcdMemberFactory {
    private final String name;
    private final int electionTimeoutMillis;
    private final int heartbeatMillis;
    private final Path logDir;
    private final EtcdCluster.PeerRouter peerRouter;
    private final boolean preVote;
    private final EtcdTls tls;
    private final boolean clientCertAuth;

    EtcdMemberFactory(String name, int electionTimeoutMillis, int heartbeatMillis, Path logDir,
            EtcdCluster.PeerRouter peerRouter, boolean preVote, EtcdTls tls, boolean clientCertAuth) {
        this.name = name;
        this.electionTimeoutMillis = electionTimeoutMillis;
        this.heartbeatMillis = heartbeatMillis;
        this.logDir = logDir;
        this.peerRouter = peerRouter;
        this.preVote = preVote;
        this.tls = tls;
        this.clientCertAuth = clientCertAuth;
    }

    /** create returns {@code memberCount} new, not yet launched members of {@code cluster}, on fresh ports. */
    List<EtcdMember> create(EtcdCluster cluster, Path binary, int memberCount) {
        int[] ports;
        String token = name + "-" + UUID.randomUUID();
        List<String> initialCluster = new ArrayList<>();
        List<PeerUrls> peers = new ArrayList<>();
        // The ports stay bound while the peer router binds its proxies, so no proxy gets one of them.
        try (ReservedPorts reserved = ReservedPorts.of(2 * memberCount)) {
            ports = reserved.ports();
            for (int i = 0; i < memberCount; i++) {
                PeerUrls peer = peerUrls(memberName(i), ports[2 * i + 1]);
                peers.add(peer);
                initialCluster.add(memberName(i) + "=" + peer.advertise());
            }
        }
        List<EtcdMember> created = new ArrayList<>();
        for (int i = 0; i < memberCount; i++) {
            List<String> state = List.of("--initial-cluster-state", "new", "--initial-cluster-token", token);
            created.add(member(cluster, binary, memberName(i), ports[2 * i], ports[2 * i + 1], peers.get(i),
                    String.join(",", initialCluster), state));
        }
        return List.copyOf(created);
    }

    /**
     * joining returns a new, not yet launched member {@code <cluster>-<index>} on fresh ports and a fresh data dir,
     * which joins the running cluster ({@code --initial-cluster-state existing}); {@code announce} receives the peer
     * URL the member will advertise, adds it to the cluster (etcd's MemberAdd) and returns the
     * {@code --initial-cluster} value that lists every member with the new one.
     */
    EtcdMember joining(EtcdCluster cluster, Path binary, int index, Function<String, String> announce) {
        int[] ports;
        String memberName = memberName(index);
        PeerUrls peer;
        // As in create: bound while the router binds the new member's proxy (a proxy once took the
        // client port picked here, and the member could not start: address already in use).
        try (ReservedPorts reserved = ReservedPorts.of(2)) {
            ports = reserved.ports();
            peer = peerUrls(memberName, ports[1]);
        }
        String initialCluster = announce.apply(peer.advertise());
        return member(cluster, binary, memberName, ports[0], ports[1], peer, initialCluster,
                List.of("--initial-cluster-state", "existing"));
    }

    private EtcdMember member(EtcdCluster cluster, Path binary, String memberName, int clientPort, int peerPort,
            PeerUrls peer, String initialCluster, List<String> clusterState) {
        String clientUrl = cluster.clientScheme() + "://127.0.0.1:" + clientPort;
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
                "--initial-cluster", initialCluster));
        command.addAll(clusterState);
        command.addAll(List.of(
                "--heartbeat-interval", Integer.toString(heartbeatMillis),
                "--election-timeout", Integer.toString(electionTimeoutMillis),
                "--pre-vote=" + preVote,
                // etcd 3.4 defaults to the deprecated capnslog logger; zap gives one JSON object per line.
                "--logger", "zap",
                "--log-outputs", "stderr"));
        if (tls != null) {
            command.addAll(tls.serverFlags(clientCertAuth));
        }
        return new EtcdMember(cluster, memberName, clientPort, peerPort, dataDir, logDir.resolve(memberName + ".log"),
                command);
    }

    /**
     * Listen and advertise peer URLs of one member, computed only here.
     *
     * <p>Kept in one place on purpose: a chaos harness that routes raft traffic through TCP proxies needs members to
     * listen on their own port but advertise the proxy's: {@link EtcdClusterBuilder#peerRouter} does that here.
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

    /**
     * ReservedPorts holds {@code count} free ports of 127.0.0.1 bound until closed, so one cluster
     * never gets the same port twice and nothing else in this JVM is given one meanwhile.
     */
    private record ReservedPorts(List<ServerSocket> sockets) implements AutoCloseable {
        static ReservedPorts of(int count) {
            List<ServerSocket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    sockets.add(new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")));
                }
                return new ReservedPorts(sockets);
            } catch (IOException e) {
                new ReservedPorts(sockets).close();
                throw new UncheckedIOException("cannot pick free ports", e);
            }
        }

        int[] ports() {
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        }

        @Override
        public void close() {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // The port is released either way once the socket object is gone.
                }
            }
        }
    }
}
