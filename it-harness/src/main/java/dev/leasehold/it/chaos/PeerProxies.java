package dev.leasehold.it.chaos;

import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.TcpProxy.SourceResolver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PeerProxies puts one inbound {@link TcpProxy} in front of each etcd member's peer port, so
 * the harness can cut a member off from its peers while its clients still reach it.
 *
 * <p>Used as the cluster's {@link EtcdCluster.PeerRouter}: members advertise the proxy's port,
 * so every peer connection (raft streams, pipeline, snapshots, lease forwarding, version
 * probes) to member M passes M's proxy. The proxy tells which member dialled by looking the
 * connection's client end up in /proc ({@link ProcNet}). {@link #isolate} then blackholes (or
 * resets) everything into the member and everything from it into the other members' proxies;
 * traffic between the other members passes. Thread-safe.
 */
public final class PeerProxies implements EtcdCluster.PeerRouter, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeerProxies.class);

  private final Map<String, TcpProxy> proxies = new ConcurrentHashMap<>();
  private volatile EtcdCluster cluster;
  private volatile String isolated;

  @Override
  public synchronized int route(String memberName, int listenPort) {
    TcpProxy old = proxies.remove(memberName);
    if (old != null) {
      old.close();
    }
    try {
      TcpProxy p = TcpProxy.start("peer-" + memberName, listenPort, this::resolve);
      proxies.put(memberName, p);
      return p.port();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the peer proxy for " + memberName, e);
    }
  }

  /**
   * forget closes the proxy in front of {@code memberName}, a member removed from the cluster, so
   * that nothing dials it again and an isolation no longer names it.
   */
  public synchronized void forget(String memberName) {
    TcpProxy p = proxies.remove(memberName);
    if (p != null) {
      p.close();
    }
  }

  /** attach tells the proxies which cluster's processes may dial them; call right after start. */
  public void attach(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * isolate cuts {@code memberName} from every peer, both ways, in the given mode (BLACKHOLE or
   * RESET); clients still reach it on its client port. A connection whose dialler cannot be
   * told is cut too, and counted in the log.
   */
  public synchronized void isolate(String memberName, TcpProxy.Mode mode) {
    if (!proxies.containsKey(memberName)) {
      throw new IllegalArgumentException("no peer proxy for " + memberName + ": " + proxies.keySet());
    }
    isolated = memberName;
    // Label every connection first from one look at /proc, so the cut below is applied to all
    // links within milliseconds: a cut spread over a second is a different, partial partition.
    SourceResolver snapshot = snapshotResolver();
    for (TcpProxy p : proxies.values()) {
      p.resolveSources(snapshot);
    }
    for (Map.Entry<String, TcpProxy> e : proxies.entrySet()) {
      if (e.getKey().equals(memberName)) {
        e.getValue().setMode(mode);
      } else {
        e.getValue().setPolicy(
            source -> {
              if (source.equals(memberName)) {
                return mode;
              }
              if (source.equals("?")) {
                log.warn("peer proxy {}: cannot tell who dialled; cutting it too", e.getKey());
                return mode;
              }
              return TcpProxy.Mode.PASS;
            });
      }
    }
  }

  /** heal lets all peer traffic pass again (connections that were blackholed are reset). */
  public synchronized void heal() {
    isolated = null;
    for (TcpProxy p : proxies.values()) {
      p.setMode(TcpProxy.Mode.PASS);
    }
  }

  /** isolated is the member currently cut off, or null. */
  public String isolated() {
    return isolated;
  }

  /** describe lists every proxy's counters and the sources of its connections. */
  public String describe() {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, TcpProxy> e : proxies.entrySet()) {
      out.add(e.getValue().stats() + " from " + e.getValue().sources());
    }
    return String.join("; ", out);
  }

  @Override
  public void close() {
    for (TcpProxy p : proxies.values()) {
      p.close();
    }
    proxies.clear();
  }

  private String resolve(int clientPort, int proxyPort) {
    EtcdCluster c = cluster;
    if (c == null) {
      return "?";
    }
    // The dialler's socket: local port = clientPort, remote port = the proxy's port.
    long inode = ProcNet.socketInode(clientPort, proxyPort);
    if (inode < 0) {
      return "?";
    }
    for (EtcdMember m : c.members()) {
      if (ProcNet.owns(m.pid(), inode)) {
        return m.name();
      }
    }
    return "?";
  }

  private SourceResolver snapshotResolver() {
    EtcdCluster c = cluster;
    if (c == null) {
      return SourceResolver.NONE;
    }
    ProcNet.Snapshot net = ProcNet.Snapshot.take();
    Map<String, java.util.Set<Long>> sockets = new java.util.HashMap<>();
    for (EtcdMember m : c.members()) {
      sockets.put(m.name(), ProcNet.socketInodes(m.pid()));
    }
    return (clientPort, proxyPort) -> {
      long inode = net.inode(clientPort, proxyPort);
      if (inode >= 0) {
        for (Map.Entry<String, java.util.Set<Long>> e : sockets.entrySet()) {
          if (e.getValue().contains(inode)) {
            return e.getKey();
          }
        }
      }
      return resolve(clientPort, proxyPort);
    };
  }
}
