package dev.leasehold.bench;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdCallPolicy;
import dev.leasehold.bench.contender.Arrival;
import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.bench.contender.Kind;
import dev.leasehold.bench.contender.SharedClient;
import dev.leasehold.bench.contender.WarmUp;
import dev.leasehold.etcd.EtcdLeaderElector;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * ScaleMain runs many Leasehold electors on one key in this JVM and reports, as {@code RESULT
 * name value} lines: the time to the first leader, the time until every elector knows it, heap,
 * threads and resident memory per elector, and the handover time at that scale. Between
 * settling and the handovers it prints {@code SETTLED} and waits for a {@code handover} line,
 * so the bench can measure etcd's idle cost meanwhile (with {@code -Dleasehold.trace=true}, the
 * cold start's hops come first, see {@link ColdStartHops}); then for a {@code failover} line, after
 * which the leader closes without a handover and the next election is timed; then for one more
 * line before every elector closes.
 *
 * <p>Arguments: {@code --endpoints=URL[,URL] --key=K --count=N --shared-client=true|false
 * --ttl-seconds=N --handovers=N [--settle-ms=N] [--standby=true|false] [--pace-us=N]}: with a pace, the
 * electors start one every {@code N} µs ({@link Arrival}), else each as soon as the one before it has
 * started. Not thread-safe; one per JVM.
 */
public final class ScaleMain {
  private static final Duration WAIT = Duration.ofSeconds(120);

  private ScaleMain() {}

  /** main runs the scale scenario and exits. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (String a : args) {
      o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    String[] endpoints = o.get("endpoints").split(",");
    String key = o.get("key");
    int count = Integer.parseInt(o.get("count"));
    boolean shared = Boolean.parseBoolean(o.get("shared-client"));
    boolean standby = Boolean.parseBoolean(o.getOrDefault("standby", "true"));
    Duration ttl = Duration.ofSeconds(Long.parseLong(o.get("ttl-seconds")));
    int handovers = Integer.parseInt(o.get("handovers"));
    Arrival arrival = Arrival.everyMicros(Long.parseLong(o.getOrDefault("pace-us", "0")));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    Footprint before = Footprint.now(3);
    // A shared client gets what an elector's own client has: a deadline on every call but a
    // watch, at the default rpc timeout for this TTL (min(1 s, TTL/4)).
    Duration rpcTimeout = ttl.dividedBy(4).compareTo(Duration.ofSeconds(1)) < 0 ? ttl.dividedBy(4) : Duration.ofSeconds(1);
    Client client = shared ? SharedClient.build(endpoints, new EtcdCallPolicy(rpcTimeout)) : null;
    AtomicInteger leader = new AtomicInteger(-1);
    AtomicLong electedAt = new AtomicLong();
    Object lock = new Object();
    List<LeaderElector> electors = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      EtcdLeaderElector.Builder b =
          EtcdLeaderElector.builder().electionKey(key).candidateId("scale-" + i).leaseTtl(ttl)
              .standbyLease(standby);
      if (shared) {
        b.client(client);
      } else {
        b.endpoints(endpoints);
      }
      LeaderElector e = b.build();
      int idx = i;
      e.onLeadershipChanged(
          ev -> {
            long now = System.nanoTime();
            if (ev.cause() != LeadershipEvent.Cause.SUBSCRIBED && ev.isElected()) {
              synchronized (lock) {
                leader.set(idx);
                electedAt.set(now);
                lock.notifyAll();
              }
            }
          });
      electors.add(e);
    }
    if (client != null) {
      result(out, "client_connect_ms", ms(SharedClient.connect(client, key)));
      // Warm the elector's own path (grants, campaigns, watches) on another key with as many
      // electors, as the jetcd Election row warms its own: the cold start below then compares
      // protocols, not compilation.
      result(out, "warmup_ms", ms(WarmUp.run(standby ? Kind.LEASEHOLD : Kind.LEASEHOLD_NO_STANDBY, client,
          endpoints, key + "-warmup", ttl, count, Duration.ofSeconds(60))));
    }
    // The trace's drain waits for Flight Recorder's next flush (up to a second): before t0, not in it.
    ColdStartHops hops = HopTrace.ON ? new ColdStartHops() : null;
    // Whose CPU the cold start uses: this JVM's (the electors and the client) and the etcd
    // members' (process_cpu_seconds_total, 10 ms steps), from t0 until every elector knows.
    List<String> eps = Arrays.stream(endpoints).toList();
    EtcdMetrics.Sample etcd0 = EtcdMetrics.scrape(eps);
    long cpu0 = ContenderMain.processCpuNanos();
    long t0 = System.nanoTime();
    arrival.startEach(t0, electors, LeaderElector::start);
    long started = System.nanoTime();
    long first = awaitElected(lock, electedAt, t0);
    result(out, "first_leader_ms", ms(first - t0));
    result(out, "cold_start_jvm_cpu_to_first_ms", ms(ContenderMain.processCpuNanos() - cpu0));
    // The start() calls alone, one after another on this thread (each starts an elector's threads).
    result(out, "start_calls_ms", ms(started - t0));
    long knowAt = awaitAllKnow(electors, electors.get(leader.get()));
    result(out, "all_know_leader_ms", ms(knowAt - t0));
    long cpu1 = ContenderMain.processCpuNanos();
    EtcdMetrics.Sample etcd1 = EtcdMetrics.scrape(eps);
    result(out, "cold_start_jvm_cpu_ms", ms(cpu1 - cpu0));
    result(out, "cold_start_etcd_cpu_ms", (etcd1.cpuSeconds() - etcd0.cpuSeconds()) * 1000);
    if (hops != null) {
      result(out, "cold_start_hops", hops.stop(t0));
    }
    Thread.sleep(Long.parseLong(o.getOrDefault("settle-ms", "2000")));
    Footprint after = Footprint.now(3);
    result(out, "heap_bytes_per_elector", (after.heap() - before.heap()) / (double) count);
    result(out, "threads_per_elector", (after.threads() - before.threads()) / (double) count);
    result(out, "rss_bytes_per_elector", (after.rss() - before.rss()) / (double) count);
    result(out, "threads_total", after.threads());
    out.println("SETTLED");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String cmd = in.readLine();
    StringJoiner samples = new StringJoiner(",");
    if ("handover".equals(cmd)) {
      for (int i = 0; i < handovers; i++) {
        int was = leader.get();
        long t;
        synchronized (lock) {
          t = System.nanoTime();
          electedAt.set(0);
          electors.get(was).resign();
        }
        long at = awaitElected(lock, electedAt, t);
        samples.add(String.format("%.3f", ms(at - t)));
        awaitAllKnow(electors, electors.get(leader.get()));
        Thread.sleep(300);
      }
    }
    result(out, "handover_ms", samples.toString());
    if ("failover".equals(in.readLine())) {
      // The leader goes without a handover: close() revokes its lease, which deletes the key and
      // its participant key in one proposal, as etcd's expiry of a crashed leader's lease does;
      // then only the queue's head campaigns (PROTOCOL.md §4.5).
      int was = leader.get();
      long t;
      synchronized (lock) {
        t = System.nanoTime();
        electedAt.set(0);
      }
      electors.get(was).close();
      long at = awaitElected(lock, electedAt, t);
      result(out, "failover_ms", String.format("%.3f", ms(at - t)));
      awaitAllKnow(electors.stream().filter(e -> e != electors.get(was)).toList(), electors.get(leader.get()));
      result(out, "failover_all_know_ms", String.format("%.3f", ms(System.nanoTime() - t)));
      // The bench reads etcd's counters for the close before the others close: their revokes
      // would count as the failover's proposals.
      in.readLine();
    }
    long c0 = System.nanoTime();
    electors.parallelStream().forEach(LeaderElector::close);
    if (client != null) {
      client.close();
    }
    result(out, "close_all_ms", ms(System.nanoTime() - c0));
    out.println("DONE");
    System.exit(0);
  }

  private static long awaitElected(Object lock, AtomicLong electedAt, long after) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    synchronized (lock) {
      while (electedAt.get() == 0 || electedAt.get() < after) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("no leader within " + WAIT);
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      return electedAt.get();
    }
  }

  /** awaitAllKnow waits until every elector names the leader's current term. */
  private static long awaitAllKnow(List<LeaderElector> electors, LeaderElector leader)
      throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < end) {
      Optional<LeaderInfo> l = leader.currentLeader();
      if (l.isPresent()) {
        long token = l.get().fencingToken();
        boolean all = electors.stream()
            .allMatch(e -> e.currentLeader().map(x -> x.fencingToken() == token).orElse(false));
        if (all) {
          return System.nanoTime();
        }
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("not every elector learnt the leader within " + WAIT);
  }

  private static void result(PrintStream out, String name, Object value) {
    out.println("RESULT " + name + " " + (value instanceof Double d ? String.format("%.3f", d) : value));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

}
