package dev.leasehold.it.chaos;

import dev.leasehold.it.LocalServer;
import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.StoreWrite;
import java.util.ArrayList;
import java.util.List;

/**
 * SqlChaosStore is what the chaos runs' SQL stores (MariaDB, PostgreSQL) share: one private
 * server process that the candidates reach through their proxies with {@code --backend=jdbc},
 * a health check, healing, and the store's own record, read from the {@code chaos_log} and
 * {@code chaos_counter} tables that each store's triggers and the counter workload fill. A
 * subclass supplies the server, its SQL and its JDBC URL, and creates the tables.
 *
 * <p>Not thread-safe; the runner's thread only (the server itself is thread-safe).
 */
abstract class SqlChaosStore implements ChaosStore {
  private final LocalServer server;
  private final String process;

  SqlChaosStore(LocalServer server, String process) {
    this.server = server;
    this.process = process;
  }

  /** sql runs one statement as the server's administrator and returns the rows as strings. */
  abstract List<List<String>> sql(String statement);

  /** jdbcUrl is the candidates' URL of the server's database through the proxy on {@code port}. */
  abstract String jdbcUrl(int port);

  /** user and password are the account the candidates log in with. */
  abstract String user();

  abstract String password();

  @Override
  public List<Integer> clientPorts() {
    return List.of(server.port());
  }

  @Override
  public List<String> endpoints(ClientProxies links) {
    return List.of();
  }

  @Override
  public List<String> candidateArgs(ChaosConfig config, ClientProxies links) {
    List<String> args = new ArrayList<>(List.of(
        "--backend=jdbc",
        "--jdbc-url=" + jdbcUrl(links.ports().get(0)),
        "--jdbc-user=" + user(),
        "--jdbc-password=" + password()));
    if (config.rpcTimeoutMillis() > 0) {
      args.add("--rpc-timeout-millis=" + config.rpcTimeoutMillis());
    }
    return args;
  }

  @Override
  public String unsteady() {
    if (!server.isRunning() || server.isPaused()) {
      return server + " not running";
    }
    try {
      sql("SELECT 1");
    } catch (IllegalStateException e) {
      return process + " does not answer: " + e.getMessage();
    }
    return null;
  }

  @Override
  public void healAll() {
    heal(server);
  }

  /** heal resumes {@code s} if it is paused, or starts it if it is not running; best effort. */
  static void heal(LocalServer s) {
    try {
      if (s.isPaused()) {
        s.resume();
      } else if (!s.isRunning()) {
        s.start();
      }
    } catch (RuntimeException ignored) {
      // Best effort.
    }
  }

  @Override
  public StoreHistory read(String electionKey, String counterKey) {
    List<List<String>> log = sql("SELECT rev, kind, name, n, writer, token, seq FROM chaos_log WHERE name IN ("
        + literal(electionKey) + ", " + literal(counterKey) + ") ORDER BY rev");
    List<List<String>> counter = sql("SELECT n FROM chaos_counter WHERE name = " + literal(counterKey));
    long finalCounter = counter.isEmpty() ? 0 : Long.parseLong(counter.get(0).get(0));
    return history(log, electionKey, counterKey, finalCounter);
  }

  /**
   * history turns {@code chaos_log} rows ({@code rev, kind, name, n, writer, token, seq}, in
   * {@code rev} order) into the store's record: every {@code W} row of the counter is a write;
   * every {@code T} row of the election starts a term (ending the one before, if no {@code E}
   * did), every {@code E} row ends the open term; a term still open at the end lasts for ever.
   */
  static StoreHistory history(List<List<String>> log, String electionKey, String counterKey, long finalCounter) {
    List<StoreWrite> writes = new ArrayList<>();
    List<Incarnation> incarnations = new ArrayList<>();
    long openRev = -1;
    long openToken = 0;
    String openHolder = null;
    for (List<String> r : log) {
      long rev = Long.parseLong(r.get(0));
      String kind = r.get(1);
      String name = r.get(2);
      if (kind.equals("W") && name.equals(counterKey)) {
        writes.add(new StoreWrite(rev, Long.parseLong(r.get(3)), r.get(4), Long.parseLong(r.get(5)),
            Long.parseLong(r.get(6))));
      } else if (name.equals(electionKey) && (kind.equals("T") || kind.equals("E"))) {
        if (openRev >= 0) {
          incarnations.add(new Incarnation(openRev, rev, openHolder, openToken));
          openRev = -1;
        }
        if (kind.equals("T")) {
          openRev = rev;
          openToken = Long.parseLong(r.get(5));
          openHolder = r.get(4);
        }
      }
    }
    if (openRev >= 0) {
      incarnations.add(new Incarnation(openRev, Long.MAX_VALUE, openHolder, openToken));
    }
    return new StoreHistory(writes, incarnations, finalCounter);
  }

  /** describeRpc names the candidates' rpc timeout for the summary line. */
  static String describeRpc(ChaosConfig config) {
    return "candidate rpc timeout "
        + (config.rpcTimeoutMillis() > 0 ? config.rpcTimeoutMillis() + " ms" : "core's default (min(1 s, TTL/4))");
  }

  @Override
  public History.Params params(ChaosConfig config) {
    // No leader election inside the store to wait for: check 5 applies at every TTL.
    return new History.Params(config.ttlSeconds() * 1_000_000_000L, config.electionTimeoutMillis() * 1_000_000L, 0);
  }

  /** literal quotes a harness-made name (letters, digits, '/', '-', '.') as an SQL string. */
  static String literal(String value) {
    if (!value.matches("[A-Za-z0-9._/-]*")) {
      throw new IllegalArgumentException("value must match [A-Za-z0-9._/-]*, but was \"" + value + "\"");
    }
    return "'" + value + "'";
  }

  @Override
  public void close() {
    server.close();
  }
}
