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

/**
 * EtcdMemberFactory creates the {@link EtcdMember}s of one start attempt of an {@link EtcdCluster}: it picks free
 * client and peer ports, a data dir and a log file per member, and builds each member's etcd command line.
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
            created.add(new EtcdMember(cluster, memberName, clientPort, peerPort, dataDir,
                    logDir.resolve(memberName + ".log"), command));
        }
        return List.copyOf(created);
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
}
