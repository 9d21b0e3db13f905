package dev.leasehold.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * BlackholeProxy forwards TCP from a local port to one etcd member and can blackhole the link:
 * while blackholed it keeps every connection open and accepts new ones but forwards no byte in
 * either direction, which is what a client sees when the network silently drops its packets
 * (no reset, no error, only silence). {@link #heal()} closes the connections that lived
 * through the blackhole (their byte streams lost data) so clients reconnect, and forwards
 * again.
 *
 * <p>The it-tests chaos proxies were not committed when the bench needed one; this is the
 * minimal version it needs. Thread-safe; one thread per accepted connection direction.
 */
final class BlackholeProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean blackholed;
  private volatile boolean closed;

  BlackholeProxy(int targetPort) {
    this.targetPort = targetPort;
    try {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::acceptLoop, "proxy-accept-" + port());
    t.setDaemon(true);
    t.start();
  }

  /** port is the local port clients connect to. */
  int port() {
    return server.getLocalPort();
  }

  /** endpoint is the etcd URL for clients that go through this proxy. */
  String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  /** blackhole stops forwarding, silently, in both directions. */
  void blackhole() {
    blackholed = true;
  }

  /** heal closes the connections that crossed the blackhole and forwards new ones again. */
  void heal() {
    blackholed = false;
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        client.setTcpNoDelay(true);
        sockets.add(client);
        Thread t = new Thread(() -> connect(client), "proxy-conn-" + port());
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (!closed) {
          continue;
        }
        return;
      }
    }
  }

  private void connect(Socket client) {
    // A connection opened during the blackhole is held silent until heal() closes it.
    while (blackholed && !client.isClosed()) {
      sleep(20);
    }
    if (client.isClosed()) {
      sockets.remove(client);
      return;
    }
    Socket upstream = new Socket();
    try {
      upstream.setTcpNoDelay(true);
      upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 1000);
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(upstream);
      sockets.remove(client);
      return;
    }
    sockets.add(upstream);
    Thread back = new Thread(() -> pump(upstream, client), "proxy-pump-" + port());
    back.setDaemon(true);
    back.start();
    pump(client, upstream);
  }

  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (!blackholed) {
          out.write(buf, 0, n);
          out.flush();
        }
      }
    } catch (IOException e) {
      // Either side closed, or heal() closed both.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // Already closed.
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
