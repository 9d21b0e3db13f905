package dev.leasehold.it.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TcpProxy forwards TCP connections from a port on 127.0.0.1 to a target port, and can cut them.
 *
 * <p>Each connection has a mode, decided by the proxy's {@link Policy} from the connection's
 * source (a label the {@link SourceResolver} gives it, such as the etcd member that dialled):
 *
 * <ul>
 *   <li>{@link Mode#PASS}: bytes flow both ways.
 *   <li>{@link Mode#BLACKHOLE}: the connection stays open and every byte from either side is read
 *       and dropped; a new connection is accepted and never answered. Like a network that loses
 *       every packet: the peers notice only through their own timeouts. A connection that has
 *       been blackholed lost bytes in the middle of its stream, so when the policy passes it again
 *       it is reset rather than resumed with a corrupt stream (a long partition breaks TCP
 *       connections too).
 *   <li>{@link Mode#RESET}: existing connections are closed with a TCP reset, new ones are reset
 *       as soon as they are accepted (the client sees the same as a refused connection: the
 *       peer is gone).
 * </ul>
 *
 * <p>Blocking sockets, two daemon threads per connection; fine for the few dozen long-lived
 * connections of a local etcd cluster. Thread-safe: the policy may change from any thread;
 * {@link #close()} resets every connection and stops accepting.
 */
public final class TcpProxy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 1000;

  /** Mode is what happens to one connection's bytes. */
  public enum Mode {
    PASS,
    BLACKHOLE,
    RESET
  }

  /** Policy decides the mode of a connection from its source label. */
  @FunctionalInterface
  public interface Policy {
    /** PASS_ALL lets everything through. */
    Policy PASS_ALL = source -> Mode.PASS;

    /** modeFor returns the mode for a connection whose source is {@code source}. */
    Mode modeFor(String source);
  }

  /** SourceResolver labels an accepted connection, from its client-side port; may return "?". */
  @FunctionalInterface
  public interface SourceResolver {
    /** NONE labels every connection "?". */
    SourceResolver NONE = (port, proxyPort) -> "?";

    /**
     * resolve labels the connection whose client end is 127.0.0.1:{@code clientPort}, dialled to
     * this proxy's {@code proxyPort}.
     */
    String resolve(int clientPort, int proxyPort);
  }

  private final String name;
  private volatile int targetPort;
  private final ServerSocket server;
  private final SourceResolver resolver;
  private final Set<TcpProxyConn> conns = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong delayMillis = new AtomicLong();
  private final Object policyLock = new Object();
  private volatile Policy policy = Policy.PASS_ALL;

  private TcpProxy(String name, ServerSocket server, int targetPort, SourceResolver resolver) {
    this.name = name;
    this.server = server;
    this.targetPort = targetPort;
    this.resolver = resolver;
    Thread acceptor = new Thread(this::acceptLoop, "proxy-accept-" + name);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** start listens on a free port of 127.0.0.1 and forwards to {@code targetPort} there. */
  public static TcpProxy start(String name, int targetPort) throws IOException {
    return start(name, targetPort, SourceResolver.NONE);
  }

  /** start listens on a free port and labels each connection with {@code resolver}. */
  public static TcpProxy start(String name, int targetPort, SourceResolver resolver)
      throws IOException {
    ServerSocket server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 128);
    return new TcpProxy(name, server, targetPort, resolver);
  }

  /** name labels this proxy in logs. */
  public String name() {
    return name;
  }

  /** port is the port this proxy listens on. */
  public int port() {
    return server.getLocalPort();
  }

  /** targetPort is the port it forwards to. */
  public int targetPort() {
    return targetPort;
  }

  /**
   * retarget forwards new connections to {@code port} from now on and resets the open ones, which
   * lead to the old target: the address clients dial stays, the server behind it changes (an etcd
   * member replaced by a new one on other ports).
   */
  public void retarget(int port) {
    synchronized (policyLock) {
      targetPort = port;
      for (TcpProxyConn c : conns) {
        c.reset();
      }
    }
  }

  /** setMode applies one mode to every connection, current and future. */
  public void setMode(Mode mode) {
    setPolicy(source -> mode);
  }

  /**
   * setDelay holds every chunk of bytes passed, in both directions and on every connection, for
   * {@code millis} before forwarding it (0: none): a slow link, which blackholed or reset
   * connections do not notice.
   */
  public void setDelay(long millis) {
    delayMillis.set(millis);
  }

  /** setPolicy decides every connection's mode anew, current and future. */
  public void setPolicy(Policy newPolicy) {
    synchronized (policyLock) {
      policy = newPolicy;
      for (TcpProxyConn c : conns) {
        c.apply(newPolicy.modeFor(c.source()));
      }
    }
  }

  /**
   * resolveSources labels every connection still unlabelled ("?") with {@code resolver}, without
   * holding the policy lock, so that a following {@link #setPolicy} is quick.
   */
  public void resolveSources(SourceResolver with) {
    for (TcpProxyConn c : conns) {
      c.resolveWith(with);
    }
  }

  /** connectionCount is the number of open connections. */
  public int connectionCount() {
    return conns.size();
  }

  /** sources lists the source label of every open connection, for diagnostics. */
  public List<String> sources() {
    List<String> out = new ArrayList<>();
    for (TcpProxyConn c : conns) {
      out.add(c.source() + (c.blackholed ? "(blackholed)" : ""));
    }
    return out;
  }

  /** stats is a one-line summary for logs. */
  public String stats() {
    return name + ": port " + port() + " -> " + targetPort + ", " + conns.size() + " open, "
        + accepted.get() + " accepted, " + dropped.get() + " bytes dropped";
  }

  /** close stops accepting and resets every connection; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
    } catch (IOException ignored) {
      // Closing is best effort.
    }
    for (TcpProxyConn c : conns) {
      c.reset();
    }
  }

  private void acceptLoop() {
    while (!closed.get()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          log.warn("{}: accept failed: {}", name, e.toString());
        }
        return;
      }
      accepted.incrementAndGet();
      Thread t = new Thread(() -> open(s), "proxy-open-" + name);
      t.setDaemon(true);
      t.start();
    }
  }

  private void open(Socket client) {
    TcpProxyConn c = new TcpProxyConn(client, name, port(), resolver, dropped, delayMillis, conns);
    c.source(); // resolve outside the lock: it may read /proc
    Mode mode;
    synchronized (policyLock) {
      if (closed.get()) {
        resetQuietly(client);
        return;
      }
      mode = policy.modeFor(c.source());
      if (mode == Mode.RESET) {
        resetQuietly(client);
        return;
      }
      c.blackholed = mode == Mode.BLACKHOLE;
      conns.add(c);
    }
    if (!c.blackholed) {
      int target = targetPort;
      try {
        Socket up = new Socket();
        up.setTcpNoDelay(true);
        up.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), target), CONNECT_TIMEOUT_MILLIS);
        synchronized (c) {
          c.upstream = up;
        }
      } catch (IOException e) {
        // The target is down: the client sees its connection reset, as it would a refusal.
        c.reset();
        return;
      }
      synchronized (policyLock) {
        // The policy, or the target, may have changed while connecting.
        if (target != targetPort) {
          c.reset();
          return;
        }
        c.apply(policy.modeFor(c.source()));
      }
    }
    c.startPumps();
  }

  /** resetQuietly closes {@code s} with a TCP reset (SO_LINGER 0), ignoring errors. */
  static void resetQuietly(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (SocketException ignored) {
      // Closing anyway.
    }
    try {
      s.close();
    } catch (IOException ignored) {
      // Closed either way.
    }
  }

  @Override
  public String toString() {
    return stats();
  }

  /** Policies built from a predicate on the source. */
  public static Policy blockWhen(Function<String, Boolean> blocked, Mode mode) {
    return source -> Boolean.TRUE.equals(blocked.apply(source)) ? mode : Mode.PASS;
  }
}
