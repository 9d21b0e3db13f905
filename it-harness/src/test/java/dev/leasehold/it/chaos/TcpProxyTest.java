package dev.leasehold.it.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TcpProxyTest drives the proxy's three modes against a local echo server, and ProcNet's lookup. */
class TcpProxyTest {
  private ServerSocket echo;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();
  private TcpProxy proxy;

  @BeforeEach
  void startEcho() throws IOException {
    echo = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    Thread t = new Thread(() -> {
      while (!echo.isClosed()) {
        try {
          Socket s = echo.accept();
          accepted.add(s);
          Thread c = new Thread(() -> {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
              byte[] b = new byte[1024];
              int n;
              while ((n = in.read(b)) >= 0) {
                out.write(b, 0, n);
              }
            } catch (IOException ignored) {
              // The test ended the connection.
            }
          });
          c.setDaemon(true);
          c.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    proxy = TcpProxy.start("test", echo.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 1000);
    s.setSoTimeout(500);
    return s;
  }

  private static String roundTrip(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes());
    s.getOutputStream().flush();
    byte[] b = new byte[text.length()];
    int got = 0;
    while (got < b.length) {
      int n = s.getInputStream().read(b, got, b.length - got);
      if (n < 0) {
        throw new IOException("closed after " + got + " bytes");
      }
      got += n;
    }
    return new String(b);
  }

  @Test
  void passForwardsBothWays() throws IOException {
    try (Socket s = connect()) {
      assertEquals("hello", roundTrip(s, "hello"));
    }
  }

  @Test
  void blackholeKeepsConnectionsOpenButDropsEverythingAndHealResetsThem() throws Exception {
    try (Socket before = connect()) {
      assertEquals("one", roundTrip(before, "one"));
      proxy.setMode(TcpProxy.Mode.BLACKHOLE);
      // The existing connection stays open: writes succeed, nothing comes back.
      assertThrows(SocketTimeoutException.class, () -> roundTrip(before, "two"));
      try (Socket during = connect()) {
        assertThrows(SocketTimeoutException.class, () -> roundTrip(during, "three"));
        assertTrue(proxy.connectionCount() >= 2, proxy.stats());
        proxy.setMode(TcpProxy.Mode.PASS);
        // Bytes were lost mid-stream, so the blackholed connections are reset, not resumed.
        assertThrows(IOException.class, () -> {
          for (int i = 0; i < 20; i++) {
            roundTrip(during, "four");
            Thread.sleep(20);
          }
        });
      }
      try (Socket after = connect()) {
        assertEquals("five", roundTrip(after, "five"));
      }
    }
  }

  @Test
  void aBlackholeHidesTheServersResetFromTheClient() throws Exception {
    try (Socket s = connect()) {
      assertEquals("one", roundTrip(s, "one"));
      proxy.setMode(TcpProxy.Mode.BLACKHOLE);
      // The server ends the session (as mariadbd does at wait_timeout): the FIN is lost too.
      for (Socket server : accepted) {
        server.setSoLinger(true, 0); // a reset, as mariadbd sends
        server.close();
      }
      s.setSoTimeout(800);
      assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read());
    }
  }

  @Test
  void retargetResetsOpenConnectionsAndLeadsNewOnesToTheNewTarget() throws Exception {
    // The new target greets each connection with "B", then hangs up.
    try (ServerSocket other = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      Thread t = new Thread(() -> {
        while (!other.isClosed()) {
          try (Socket s = other.accept()) {
            s.getOutputStream().write('B');
            s.getOutputStream().flush();
            s.getInputStream().read();
          } catch (IOException e) {
            // Closed by the test.
          }
        }
      });
      t.setDaemon(true);
      t.start();
      try (Socket before = connect()) {
        assertEquals("one", roundTrip(before, "one"));
        proxy.retarget(other.getLocalPort());
        assertThrows(IOException.class, () -> roundTrip(before, "two"));
      }
      try (Socket after = connect()) {
        assertEquals('B', after.getInputStream().read());
      }
      assertEquals(other.getLocalPort(), proxy.targetPort());
    }
  }

  @Test
  void resetClosesExistingConnectionsAndRefusesNewOnes() throws Exception {
    try (Socket before = connect()) {
      assertEquals("one", roundTrip(before, "one"));
      proxy.setMode(TcpProxy.Mode.RESET);
      assertThrows(IOException.class, () -> roundTrip(before, "two"));
      // A new connection is reset at once: connect itself or the first exchange fails.
      assertThrows(IOException.class, () -> {
        try (Socket during = connect()) {
          roundTrip(during, "three");
        }
      });
      proxy.setMode(TcpProxy.Mode.PASS);
      try (Socket after = connect()) {
        assertEquals("four", roundTrip(after, "four"));
      }
    }
  }

  @Test
  void aPolicyCutsOnlyTheSourcesItNames() throws Exception {
    proxy.close();
    proxy = TcpProxy.start("test", echo.getLocalPort(), (port, proxyPort) -> port % 2 == 0 ? "even" : "odd");
    proxy.setPolicy(source -> source.equals("even") ? TcpProxy.Mode.RESET : TcpProxy.Mode.PASS);
    int passed = 0;
    int reset = 0;
    for (int i = 0; i < 10; i++) {
      Socket s = new Socket();
      try {
        s.bind(new InetSocketAddress("127.0.0.1", 0));
        boolean even = s.getLocalPort() % 2 == 0;
        try {
          s.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 1000);
          s.setSoTimeout(500);
          assertEquals("x", roundTrip(s, "x"));
          assertTrue(!even, "an even source passed");
          passed++;
        } catch (IOException e) {
          assertTrue(even, "an odd source was cut: " + e);
          reset++;
        }
      } finally {
        s.close();
      }
    }
    assertEquals(10, passed + reset);
  }

  @Test
  void procNetFindsTheProcessThatOwnsAConnection() throws IOException {
    try (Socket s = connect()) {
      long inode = ProcNet.socketInode(s.getLocalPort(), proxy.port());
      assertTrue(inode > 0, "no inode for local port " + s.getLocalPort());
      assertTrue(ProcNet.owns(ProcessHandle.current().pid(), inode));
      assertTrue(!ProcNet.owns(1, inode) || ProcessHandle.current().pid() == 1);
    }
  }
}
