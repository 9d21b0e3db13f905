package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdCallPolicy;
import dev.leasehold.etcd.EtcdLeaderElector;
import dev.leasehold.jdbc.JdbcLeaderElector;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CandidateMain runs one elector in its own JVM so tests and the demo can crash it for real
 * (SIGKILL) or freeze it (SIGSTOP).
 *
 * <p>With {@code --backend=jdbc} it runs a MariaDB/MySQL candidate instead (see {@link #runJdbc}).
 *
 * <p>Arguments: {@code --endpoints=URL[,URL] --key=KEY --id=ID [--ttl-seconds=N]
 * [--poll-millis=N] [--rpc-timeout-millis=N] [--close-on-shutdown=true] [--health-file=PATH]}
 * (with a health file, the elector's health check answers unhealthy while that file exists,
 * polled every 100 ms, 2 answers in a row). It prints one line per fact on stdout:
 * {@code READY <pid>}, and {@code EVENT <nanoTime> <cause> <from> <to> <leaderId|-> <token|0>}
 * per event. It reads commands from stdin: {@code resign}, {@code close} (revoke and exit 0),
 * {@code clock <n>} (prints {@code CLOCK <n> <nanoTime>}: the caller's clock reading {@code n}
 * echoed with its own, which lets a caller map the stamps of a JVM run under libfaketime).
 * End of input closes too. Not thread-safe; one instance per JVM.
 *
 * <p>With {@code --workload=counter --counter-key=KEY [--think-millis=N]} it also runs the
 * chaos workload ({@link CounterWorkload}): while MASTER ({@link dev.leasehold.Leadership#isValid()}
 * checked before each attempt) it reads the counter, waits the think time (the "work" a leader
 * does with what it read), and writes counter+1 in a transaction guarded by
 * {@link dev.leasehold.etcd.EtcdFencing#guard} and by a compare on the counter's mod revision
 * ({@link EtcdCounterWorkload}; on MariaDB, {@link JdbcCounterWorkload}). Each attempt prints
 * {@code WRITE <checkNanos> <sendNanos> <endNanos> <token> <OK|FENCED|CONFLICT|ERROR> <value> <seq>}:
 * the time isValid() was last true before the attempt, the time the transaction was sent, the
 * time its outcome was known, the fencing token it carried, the outcome (ERROR: unknown, the
 * write may or may not have been applied), the value written (OK/ERROR) or found (FENCED,
 * CONFLICT), and the attempt's sequence number in this process; just before sending it prints
 * {@code SEND <sendNanos> <token> <seq>}. The stored value is
 * {@code "<n> <id> <token> <seq>"}, so the store's history names the attempt behind each write.
 *
 * <p>With {@code --require-leader=true} the counter workload's client (which the elector shares)
 * sends etcd's {@code hasleader} metadata on every call.
 *
 * <p>With {@code --stall-report=true} it also prints {@code STALL <fromNanos> <toNanos>} whenever
 * a thread that sleeps 20 ms at a time wakes up more than 100 ms late: the process did not get
 * the CPU (an overloaded machine, a GC pause, SIGSTOP), which the chaos checker must know.
 *
 * <p>With {@code --trace-watch=true} the counter workload's client prints its watch stream's
 * creations and compactions ({@link WatchTrace}).
 */
public final class CandidateMain {
  private CandidateMain() {}

  /** main runs the candidate until told to close or killed. */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (opts.getOrDefault("backend", "etcd").equals("jdbc")) {
      runJdbc(opts, out);
      return;
    }
    List<String> endpoints = List.of(required(opts, "endpoints").split(","));
    String workload = workload(opts);
    Client client = null;
    if (workload.equals("counter")) {
      io.etcd.jetcd.ClientBuilder cb = Client.builder().endpoints(endpoints.toArray(String[]::new));
      if (Boolean.parseBoolean(opts.getOrDefault("require-leader", "false"))) {
        // etcd's "hasleader" metadata: a member that has no leader answers at once with
        // "etcdserver: no leader" instead of holding the call until a leader appears.
        cb.header("hasleader", "true");
        // As on a client the elector makes itself: every call but a watch ends at its deadline
        // (jetcd cannot cancel one), so a hung member costs a call its rpc timeout, not more.
        long ttlMillis = Long.parseLong(opts.getOrDefault("ttl-seconds", "2")) * 1000;
        long rpcMillis = Long.parseLong(opts.getOrDefault("rpc-timeout-millis",
            Long.toString(Math.min(1000, ttlMillis / 4))));
        cb.interceptor(new EtcdCallPolicy(Duration.ofMillis(rpcMillis)));
        // And as there, the executor carries the caller's gRPC Context, so the cold campaign's
        // grant and campaign keep their own, longer deadline (PROTOCOL.md §4.4).
        cb.executorService(EtcdCallPolicy.contextExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
          Thread t = new Thread(r, "candidate-etcd-client");
          t.setDaemon(true);
          return t;
        })));
      }
      if (Boolean.parseBoolean(opts.getOrDefault("trace-rpcs", "false"))) {
        cb.interceptor(new RpcTrace());
      }
      if (Boolean.parseBoolean(opts.getOrDefault("trace-watch", "false"))) {
        cb.interceptor(new WatchTrace(out));
      }
      client = cb.build();
    }
    EtcdLeaderElector.Builder builder = EtcdLeaderElector.builder();
    if (client != null) {
      builder.client(client);
    } else {
      builder.endpoints(endpoints);
    }
    builder
        .electionKey(required(opts, "key"))
        .candidateId(required(opts, "id"))
        .leaseTtl(Duration.ofSeconds(Long.parseLong(opts.getOrDefault("ttl-seconds", "2"))))
        .pollInterval(Duration.ofMillis(Long.parseLong(opts.getOrDefault("poll-millis", "1000"))));
    builder.closeOnShutdown(Boolean.parseBoolean(opts.getOrDefault("close-on-shutdown", "false")));
    if (opts.containsKey("rpc-timeout-millis")) {
      builder.rpcTimeout(Duration.ofMillis(Long.parseLong(opts.get("rpc-timeout-millis"))));
    }
    if (opts.containsKey("health-file")) {
      // Unhealthy while the file exists: the chaos harness makes a candidate's health flap.
      java.nio.file.Path sick = java.nio.file.Path.of(opts.get("health-file"));
      builder.healthCheck(() -> !java.nio.file.Files.exists(sick))
          .healthCheckInterval(Duration.ofMillis(100)).healthCheckThreshold(2);
    }
    LeaderElector elector = builder.build();
    CounterWorkload counter = null;
    if (client != null) {
      counter =
          new EtcdCounterWorkload(
              client.getKVClient(),
              required(opts, "key"),
              required(opts, "counter-key"),
              required(opts, "id"),
              Long.parseLong(opts.getOrDefault("think-millis", "20")),
              elector.config().rpcTimeout(),
              out);
    }
    subscribe(elector, counter, opts, out);
    elector.start();
    out.println("READY " + ProcessHandle.current().pid());
    try {
      serve(elector, out);
    } finally {
      if (counter != null) {
        counter.stop();
      }
      if (client != null) {
        client.close();
      }
    }
  }

  /**
   * runJdbc runs a MariaDB/MySQL candidate: {@code --backend=jdbc --jdbc-url=URL --jdbc-user=U
   * --jdbc-password=P --key=NAME --id=ID [--ttl-seconds=N] [--poll-millis=N]
   * [--rpc-timeout-millis=N] [--allow-relaxed-durability=true]}; the same READY/EVENT/STALL lines
   * and stdin commands. With {@code --workload=counter --counter-key=NAME [--think-millis=N]} it
   * runs {@link JdbcCounterWorkload} on its own connection to the same URL, guarded by
   * {@link dev.leasehold.jdbc.JdbcFencing#guard}.
   */
  static void runJdbc(Map<String, String> opts, PrintStream out) throws Exception {
    String workload = workload(opts);
    String url = required(opts, "jdbc-url");
    String user = required(opts, "jdbc-user");
    Duration ttl = Duration.ofSeconds(Long.parseLong(opts.getOrDefault("ttl-seconds", "2")));
    JdbcLeaderElector.Builder builder =
        JdbcLeaderElector.builder()
            .jdbcUrl(url, user, opts.get("jdbc-password"))
            .createTable(true)
            .allowRelaxedDurability(Boolean.parseBoolean(opts.getOrDefault("allow-relaxed-durability", "false")))
            .electionKey(required(opts, "key"))
            .candidateId(required(opts, "id"))
            .leaseTtl(ttl)
            .pollInterval(Duration.ofMillis(Long.parseLong(opts.getOrDefault("poll-millis", "1000"))));
    if (opts.containsKey("rpc-timeout-millis")) {
      builder.rpcTimeout(Duration.ofMillis(Long.parseLong(opts.get("rpc-timeout-millis"))));
    }
    LeaderElector elector = builder.build();
    JdbcCounterWorkload counter = null;
    if (workload.equals("counter")) {
      counter = new JdbcCounterWorkload(url, user, opts.get("jdbc-password"), required(opts, "counter-key"),
          required(opts, "id"), Long.parseLong(opts.getOrDefault("think-millis", "20")),
          elector.config().rpcTimeout(), ttl, out);
    }
    subscribe(elector, counter, opts, out);
    elector.start();
    out.println("READY " + ProcessHandle.current().pid());
    try {
      serve(elector, out);
    } finally {
      if (counter != null) {
        counter.stop();
      }
    }
  }

  /** workload returns the --workload option, none or counter. */
  private static String workload(Map<String, String> opts) {
    String workload = opts.getOrDefault("workload", "none");
    if (!workload.equals("none") && !workload.equals("counter")) {
      throw new IllegalArgumentException("--workload must be none or counter, but was \"" + workload + "\"");
    }
    return workload;
  }

  /**
   * subscribe prints every event, hands each new term to the workload (if any) and starts its
   * thread, and starts the stall reporter when {@code --stall-report=true}.
   */
  private static void subscribe(LeaderElector elector, CounterWorkload counter, Map<String, String> opts,
      PrintStream out) {
    if (counter != null) {
      elector.onLeadershipChanged(
          e -> {
            out.println(line(e));
            if (e.cause() == LeadershipEvent.Cause.ELECTED) {
              e.leadership().ifPresent(counter::lead);
            }
          });
      Thread t = new Thread(counter, "counter-workload");
      t.setDaemon(true);
      t.start();
    } else {
      elector.onLeadershipChanged(e -> out.println(line(e)));
    }
    if (Boolean.parseBoolean(opts.getOrDefault("stall-report", "false"))) {
      Thread stalls = new Thread(() -> reportStalls(out), "stall-report");
      stalls.setDaemon(true);
      stalls.start();
    }
  }

  /** serve runs the stdin commands until close or end of input, which closes too. */
  private static void serve(LeaderElector elector, PrintStream out) throws java.io.IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String cmd;
    while ((cmd = in.readLine()) != null) {
      switch (cmd.trim()) {
        case "resign" -> elector.resign();
        case "close" -> {
          elector.close();
          out.println("CLOSED");
          return;
        }
        default -> {
          if (cmd.startsWith("clock ")) {
            // The harness's clock reading echoed with ours: under libfaketime the harness maps
            // this JVM's stamps back to the shared clock from these pairs.
            out.println("CLOCK " + cmd.substring(6).trim() + " " + System.nanoTime());
          } else {
            out.println("UNKNOWN " + cmd);
          }
        }
      }
    }
    elector.close();
  }

  /** reportStalls prints a STALL line for every wake-up more than 100 ms late; runs until the JVM exits. */
  static void reportStalls(PrintStream out) {
    while (true) {
      long before = System.nanoTime();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
      long after = System.nanoTime();
      if (after - before > 120_000_000L) {
        out.println("STALL " + (before + 20_000_000L) + " " + after);
      }
    }
  }

  /** line formats an event as the one-line record described in the class doc. */
  public static String line(LeadershipEvent e) {
    return "EVENT " + e.nanoTime() + " " + e.cause() + " " + e.from() + " " + e.to() + " "
        + e.leaderId().orElse("-") + " " + e.fencingToken().orElse(0);
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new IllegalArgumentException("arguments must look like --name=value, but was \"" + a + "\"");
      }
      int eq = a.indexOf('=');
      m.put(a.substring(2, eq), a.substring(eq + 1));
    }
    return m;
  }

  static String required(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  /**
   * RpcTrace logs every gRPC call's method, remote address, time to first message and to close,
   * and status on stderr (the candidate's log file): for post-mortems of chaos runs. Thread-safe.
   */
  static final class RpcTrace implements io.grpc.ClientInterceptor {
    @Override
    public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(
        io.grpc.MethodDescriptor<Q, R> method, io.grpc.CallOptions options, io.grpc.Channel next) {
      long start = System.nanoTime();
      String name = method.getBareMethodName();
      return new io.grpc.ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, io.grpc.Metadata headers) {
          io.grpc.ClientCall<Q, R> call = this;
          super.start(
              new io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                private boolean first = true;

                @Override
                public void onMessage(R message) {
                  if (first) {
                    first = false;
                    trace(name, "msg", start, call, null);
                  }
                  super.onMessage(message);
                }

                @Override
                public void onClose(io.grpc.Status status, io.grpc.Metadata trailers) {
                  trace(name, "close", start, call, status);
                  super.onClose(status, trailers);
                }
              },
              headers);
        }
      };
    }

    private static void trace(String name, String what, long start, io.grpc.ClientCall<?, ?> call, io.grpc.Status s) {
      Object remote = null;
      try {
        remote = call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      } catch (RuntimeException ignored) {
        // Not known before the call started.
      }
      long now = System.nanoTime();
      System.err.println("RPC " + now + " " + name + " " + what + " started=" + start + " after="
          + (now - start) / 1_000_000 + "ms remote=" + remote
          + (s == null ? "" : " status=" + s.getCode() + (s.getDescription() == null ? "" : " " + s.getDescription())));
    }
  }
}
