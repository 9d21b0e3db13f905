package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.TcpProxy.Mode;
import dev.leasehold.it.chaos.TcpProxy.SourceResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TcpProxyConn is one connection of a {@link TcpProxy}: the client socket, the upstream socket (none
 * while blackholed from the start), and the two pump threads that copy or drop bytes between them
 * according to the connection's {@link Mode}.
 *
 * <p>Thread-safe: the proxy applies modes under its policy lock from any thread, each pump runs on its
 * own daemon thread, and a reset or close from any of them closes both ends once.
 */
final class TcpProxyConn {
  private final String name;
  private final int proxyPort;
  private final SourceResolver resolver;
  private final AtomicLong dropped;
  private final AtomicLong delayMillis;
  private final Set<TcpProxyConn> conns;
  private final Socket client;
  private final int clientPort;
  private volatile String source;
  /** upstream is set by the proxy, under this object's monitor, once connected to the target. */
  volatile Socket upstream;
  /** blackholed is set by the proxy (under its policy lock) and by {@link #apply}. */
  volatile boolean blackholed;
  private final AtomicBoolean done = new AtomicBoolean();

  TcpProxyConn(Socket client, String name, int proxyPort, SourceResolver resolver, AtomicLong dropped,
      AtomicLong delayMillis, Set<TcpProxyConn> conns) {
    this.name = name;
    this.proxyPort = proxyPort;
    this.resolver = resolver;
    this.dropped = dropped;
    this.delayMillis = delayMillis;
    this.conns = conns;
    this.client = client;
    this.clientPort = client.getPort();
    try {
      client.setTcpNoDelay(true);
    } catch (SocketException ignored) {
      // Only latency.
    }
  }

  String source() {
    String s = source;
    if (s == null || s.equals("?")) {
      s = resolver.resolve(clientPort, proxyPort);
      source = s;
    }
    return s;
  }

  void resolveWith(SourceResolver with) {
    String s = source;
    if (s == null || s.equals("?")) {
      source = with.resolve(clientPort, proxyPort);
    }
  }

  void apply(Mode mode) {
    switch (mode) {
      case RESET -> reset();
      case BLACKHOLE -> blackholed = true;
      case PASS -> {
        if (blackholed) {
          // Bytes were lost mid-stream: resuming would hand the peers a corrupt stream.
          reset();
        }
      }
    }
  }

  void startPumps() {
    Thread in = new Thread(() -> pump(client, true), "proxy-in-" + name);
    in.setDaemon(true);
    in.start();
    Socket up = upstream;
    if (up != null) {
      Thread out = new Thread(() -> pump(up, false), "proxy-out-" + name);
      out.setDaemon(true);
      out.start();
    }
  }

  private void pump(Socket from, boolean fromClient) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      while (true) {
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        if (blackholed) {
          dropped.addAndGet(n);
          continue;
        }
        Socket to = fromClient ? upstream : client;
        if (to == null) {
          dropped.addAndGet(n);
          continue;
        }
        long delay = delayMillis.get();
        if (delay > 0) {
          try {
            Thread.sleep(delay);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reset();
            return;
          }
        }
        OutputStream out = to.getOutputStream();
        out.write(buf, 0, n);
      }
      if (blackholed) {
        // The FIN is lost like every other byte: the other peer must not learn of the close
        // (a server ending an idle session would otherwise tell a partitioned client). Heal or
        // close resets the connection.
        return;
      }
      // Orderly end of one direction: pass it on as a half close.
      Socket to = fromClient ? upstream : client;
      if (to != null && !to.isClosed()) {
        to.shutdownOutput();
      }
      // Either side done ends the connection once the other direction had a moment to drain.
      finishLater();
    } catch (IOException e) {
      if (blackholed) {
        // Likewise a reset: it is lost, and heal or close resets the other side.
        return;
      }
      reset();
    }
  }

  private void finishLater() {
    // Give the other direction a moment to drain its last bytes, then close both ends.
    Thread t =
        new Thread(
            () -> {
              try {
                Thread.sleep(200);
              } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
              }
              closeBoth(false);
            },
            "proxy-finish-" + name);
    t.setDaemon(true);
    t.start();
  }

  void reset() {
    closeBoth(true);
  }

  private void closeBoth(boolean hard) {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    conns.remove(this);
    Socket up;
    synchronized (this) {
      up = upstream;
    }
    if (hard) {
      TcpProxy.resetQuietly(client);
      if (up != null) {
        TcpProxy.resetQuietly(up);
      }
    } else {
      closeQuietly(client);
      if (up != null) {
        closeQuietly(up);
      }
    }
  }

  private void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Closed either way.
    }
  }
}
