package dev.leasehold.bench.contender;

import dev.leasehold.bench.HopTrace;
import io.etcd.jetcd.Client;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * ContenderMain runs one or more candidates of one {@link Kind} in a child JVM, so the bench
 * can kill a leader for real and keep contenders apart.
 *
 * <p>Arguments: {@code --kind=LEASEHOLD|JETCD|POLLING --endpoints=URL[,URL] --key=K --id=ID
 * --ttl-seconds=N [--count=N] [--shared-client=true] [--pace-us=N]} (with a pace, the candidates start one
 * every {@code N} µs, see {@link Arrival}). Output, one fact per line on stdout:
 * {@code STARTING <nanoTime>} right before the first {@code start()} (a shared client is
 * connected by then); {@code START_CALLS_MS <ms>} and {@code READY <pid>} once all started; {@code E <index> <nanoTime> ELECTED <sourceNanoTime>}; {@code E <index> <nanoTime> LOST
 * <cause>}; {@code R <index> <nanoTime>} right before {@code resign()} is called; {@code
 * CLOSED}; after {@code trace}, {@code T <hop> <nanoTime>} per handover-trace mark and {@code
 * TRACE_END}. Input commands on stdin: {@code resign} (every candidate here that leads), {@code
 * trace} and {@code close}; end of input closes too. Not thread-safe; one per JVM.
 */
public final class ContenderMain {
  private ContenderMain() {}

  /** main runs the candidates until told to close or killed. */
  public static void main(String[] args) throws Exception {
    HopTrace.start();
    Map<String, String> o = parse(args);
    Kind kind = Kind.valueOf(required(o, "kind"));
    String[] endpoints = required(o, "endpoints").split(",");
    String key = required(o, "key");
    String id = required(o, "id");
    Duration ttl = Duration.ofSeconds(Long.parseLong(required(o, "ttl-seconds")));
    int count = Integer.parseInt(o.getOrDefault("count", "1"));
    boolean shared = Boolean.parseBoolean(o.getOrDefault("shared-client", "false"));
    Arrival arrival = Arrival.everyMicros(Long.parseLong(o.getOrDefault("pace-us", "0")));

    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Client client = shared ? SharedClient.build(endpoints) : null;
    // 1 while the candidate at that index leads, else 0.
    AtomicLongArray leading = new AtomicLongArray(count);
    // This JVM's CPU time at STARTING, and the first election's share of it (a cold start of many).
    AtomicLong cpuAtStart = new AtomicLong();
    AtomicBoolean firstElected = new AtomicBoolean();
    List<Contender> contenders = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int idx = i;
      Contender.Sink sink =
          new Contender.Sink() {
            @Override
            public void elected(long nanoTime, long sourceNanoTime) {
              leading.set(idx, 1);
              out.println("E " + idx + " " + nanoTime + " ELECTED " + sourceNanoTime);
              if (count > 1 && firstElected.compareAndSet(false, true)) {
                out.println("CPU_TO_FIRST_LEADER_MS " + (processCpuNanos() - cpuAtStart.get()) / 1e6);
              }
            }

            @Override
            public void lost(long nanoTime, String cause) {
              leading.set(idx, 0);
              out.println("E " + idx + " " + nanoTime + " LOST " + cause);
            }
          };
      contenders.add(kind.create(client, endpoints, key, count == 1 ? id : id + "-" + i, ttl, sink));
    }
    if (client != null) {
      SharedClient.connect(client, key);
      if (count > 1) {
        // A cold start of many: warm this kind's own path on another key first, with as many (WarmUp).
        WarmUp.run(kind, client, endpoints, key + "-warmup", ttl, count, Duration.ofSeconds(60));
      }
    }
    cpuAtStart.set(processCpuNanos());
    long t0 = System.nanoTime();
    out.println("STARTING " + t0);
    arrival.startEach(t0, contenders, Contender::start);
    out.println("START_CALLS_MS " + (System.nanoTime() - t0) / 1e6);
    out.println("READY " + ProcessHandle.current().pid());
    CommandLoop.serve(out, contenders, leading);
    contenders.parallelStream().forEach(Contender::close);
    if (client != null) {
      client.close();
    }
    out.println("CLOSED");
    System.exit(0);
  }

  /**
   * parse reads {@code --name=value} arguments.
   *
   * @param args the program's arguments
   * @return each name's value
   * @throws IllegalArgumentException naming an argument of another shape
   */
  public static Map<String, String> parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (!a.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments look like --name=value, but was \"" + a + "\"");
      }
      m.put(a.substring(2, eq), a.substring(eq + 1));
    }
    return m;
  }

  /**
   * required is the value of {@code --name}, which must be given and not blank.
   *
   * @param o the parsed arguments
   * @param name the argument's name, without {@code --}
   * @return its value
   * @throws IllegalArgumentException naming the missing argument
   */
  public static String required(Map<String, String> o, String name) {
    String v = o.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  /**
   * processCpuNanos is the CPU time this JVM's threads have used, or 0 where the JVM does not
   * tell (a cold start's CPU, in this JVM and in ScaleMain's).
   *
   * @return nanoseconds of CPU time since the JVM started
   */
  public static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
  }
}
