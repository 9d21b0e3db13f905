package dev.leasehold.it;

import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * EtcdClusterBuilder configures an {@link EtcdCluster} before {@link #start()} launches it.
 *
 * <p>Not thread-safe: configure and start it from one thread.
 */
public final class EtcdClusterBuilder {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final DateTimeFormatter LOG_DIR_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

    private int members = 1;
    private String name = "etcd";
    private int electionTimeoutMillis = 1000;
    private Integer heartbeatMillis;
    private EtcdCluster.PeerRouter peerRouter;
    private boolean preVote;
    private EtcdTls tls;
    private boolean clientCertAuth;
    private String rootPassword;

    EtcdClusterBuilder() {}

    /**
     * tls makes every member serve clients over https with the server certificate of {@code tls} (peers stay on
     * http); default none, plaintext.
     */
    public EtcdClusterBuilder tls(EtcdTls tls) {
        this.tls = tls;
        return this;
    }

    /** clientCertAuth makes members require a client certificate signed by the tls CA (mTLS); needs tls. */
    public EtcdClusterBuilder clientCertAuth(boolean clientCertAuth) {
        this.clientCertAuth = clientCertAuth;
        return this;
    }

    /** auth creates the root user with {@code rootPassword} and enables authentication once the cluster is up. */
    public EtcdClusterBuilder auth(String rootPassword) {
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
    public EtcdClusterBuilder preVote(boolean preVote) {
        this.preVote = preVote;
        return this;
    }

    /**
     * peerRouter makes every member advertise the peer port the router returns instead of the one it listens
     * on, so that all raft and lease-forwarding traffic between members goes wherever the router sends it
     * (chaos tests: TCP proxies that can cut or blackhole links); default none, members dial each other
     * directly.
     */
    public EtcdClusterBuilder peerRouter(EtcdCluster.PeerRouter peerRouter) {
        this.peerRouter = peerRouter;
        return this;
    }

    /** members sets the number of etcd processes, at least 1; default 1. */
    public EtcdClusterBuilder members(int members) {
        if (members < 1) {
            throw new IllegalArgumentException("members must be >= 1: " + members);
        }
        this.members = members;
        return this;
    }

    /** name sets the cluster name used for member names and the log directory; default "etcd". */
    public EtcdClusterBuilder name(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must match " + NAME + ": " + name);
        }
        this.name = name;
        return this;
    }

    /** electionTimeoutMillis sets etcd's --election-timeout; default 1000. */
    public EtcdClusterBuilder electionTimeoutMillis(int electionTimeoutMillis) {
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
    public EtcdClusterBuilder heartbeatMillis(int heartbeatMillis) {
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
}
