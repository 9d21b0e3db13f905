package dev.leasehold.it.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * ClientProxies are one candidate's own path to the store: a {@link TcpProxy} per etcd member
 * client port (or for mariadbd's one port), so the harness can cut that one candidate off
 * (blackhole or reset) while the others and the store itself stay connected. Thread-safe.
 */
public final class ClientProxies implements AutoCloseable {
  private final String owner;
  private final List<TcpProxy> proxies;
  private volatile TcpProxy.Mode mode = TcpProxy.Mode.PASS;

  private ClientProxies(String owner, List<TcpProxy> proxies) {
    this.owner = owner;
    this.proxies = proxies;
  }

  /** start opens one proxy per client port, in member order. */
  public static ClientProxies start(String owner, List<Integer> clientPorts) throws IOException {
    List<TcpProxy> ps = new ArrayList<>();
    try {
      for (int i = 0; i < clientPorts.size(); i++) {
        ps.add(TcpProxy.start("client-" + owner + "-" + i, clientPorts.get(i)));
      }
    } catch (IOException e) {
      ps.forEach(TcpProxy::close);
      throw e;
    }
    return new ClientProxies(owner, List.copyOf(ps));
  }

  /** endpoints are the URLs the candidate should dial. */
  public List<String> endpoints() {
    List<String> out = new ArrayList<>();
    for (TcpProxy p : proxies) {
      out.add("http://127.0.0.1:" + p.port());
    }
    return out;
  }

  /** connections counts the open connections through the proxy to member {@code index} (member order). */
  public int connections(int index) {
    return proxies.get(index).connectionCount();
  }

  /** ports are the proxies' own ports on 127.0.0.1, in target order. */
  public List<Integer> ports() {
    return proxies.stream().map(TcpProxy::port).toList();
  }

  /**
   * retarget points the proxy in front of target {@code index} at {@code port} (an etcd member
   * replaced by a new one at that position) and resets its open connections; the candidate's
   * endpoint list stays as it is.
   */
  public void retarget(int index, int port) {
    proxies.get(index).retarget(port);
  }

  /** cut blackholes or resets all of this candidate's connections to the store. */
  public void cut(TcpProxy.Mode how) {
    mode = how;
    proxies.forEach(p -> p.setMode(how));
  }

  /** delay slows every link by {@code millis} each way ({@link TcpProxy#setDelay}); {@link #heal} ends it. */
  public void delay(long millis) {
    proxies.forEach(p -> p.setDelay(millis));
  }

  /** heal lets the candidate's traffic pass again, without delay. */
  public void heal() {
    mode = TcpProxy.Mode.PASS;
    proxies.forEach(p -> {
      p.setDelay(0);
      p.setMode(TcpProxy.Mode.PASS);
    });
  }

  /** mode is the current mode of every link. */
  public TcpProxy.Mode mode() {
    return mode;
  }

  @Override
  public void close() {
    proxies.forEach(TcpProxy::close);
  }

  @Override
  public String toString() {
    return "ClientProxies[" + owner + ", " + mode + "]";
  }
}
