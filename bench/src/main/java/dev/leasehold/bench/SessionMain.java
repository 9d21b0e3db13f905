package dev.leasehold.bench;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import dev.leasehold.etcd.EtcdSession;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
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
 * SessionMain runs many elections on one {@link EtcdSession} in this JVM and reports, as {@code
 * RESULT name value} lines, what {@link SessionPhase} measures. Two modes:
 *
 * <ul>
 *   <li>{@code --mode=footprint --counts=1,100,...}: session A starts with no election, then grows
 *       to each count (every new election started and elected); at each count it prints heap after
 *       full GC and live threads. At the first and the last count it prints {@code IDLE n} and
 *       waits for a {@code next} line (the bench reads etcd's idle cost meanwhile), then starts a
 *       second session B following the same n names, prints {@code IDLE_FOLLOWED n}, waits for
 *       {@code next} and closes B.
 *   <li>{@code --mode=handover --count=N --trials=T --warmup=W}: sessions A and B with N elections
 *       each on the same names; times A's start to all of A's elections elected, then B's until all
 *       follow, then resigns one election ({@code shard-(N/2)}) T+W times, A and B alternating as
 *       leader, each time until the other session's ELECTED event.
 * </ul>
 *
 * <p>Arguments also: {@code --endpoints=URL[,URL] --prefix=P --ttl-seconds=N [--holdoff-ms=N]
 * [--settle-ms=N] [--batch=N]}: with a batch
 * smaller than the count, elections are added that many at a time to a started session, each
 * batch elected (or following) before the next. Not thread-safe; one per JVM.
 */
public final class SessionMain {
  private static final Duration WAIT = Duration.ofMinutes(10);

  private final String[] endpoints;
  private final String prefix;
  private final Duration ttl;
  private final Duration holdoff;
  private final long settleMs;
  private final int batch;
  private final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private final BufferedReader in =
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

  private SessionMain(Map<String, String> o) {
    this.endpoints = o.get("endpoints").split(",");
    this.prefix = o.get("prefix");
    this.ttl = Duration.ofSeconds(Long.parseLong(o.get("ttl-seconds")));
    this.holdoff = Duration.ofMillis(Long.parseLong(o.getOrDefault("holdoff-ms", "500")));
    this.settleMs = Long.parseLong(o.getOrDefault("settle-ms", "2000"));
    this.batch = Integer.parseInt(o.getOrDefault("batch", Integer.toString(Integer.MAX_VALUE)));
  }

  /** main runs one mode and exits. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (String a : args) {
      o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    SessionMain m = new SessionMain(o);
    if ("footprint".equals(o.get("mode"))) {
      m.footprint(Arrays.stream(o.get("counts").split(",")).mapToInt(Integer::parseInt).toArray());
    } else {
      m.handover(Integer.parseInt(o.get("count")), Integer.parseInt(o.get("trials")),
          Integer.parseInt(o.getOrDefault("warmup", "0")));
    }
    m.out.println("DONE");
    System.exit(0);
  }

  /** Side is one session with its elections and what their events tell. */
  private final class Side implements AutoCloseable {
    final String id;
    final EtcdSession session;
    final List<LeaderElector> elections = new ArrayList<>();
    final AtomicInteger elected = new AtomicInteger();
    final AtomicLong firstElectedAt = new AtomicLong();
    final AtomicLong lastElectedAt = new AtomicLong();
    /** watchedElectedAt is when the one election the handover trials time was last elected. */
    final AtomicLong watchedElectedAt = new AtomicLong();
    // One listener for all elections: the footprint counts no per-election bench objects.
    private final LeadershipListener listener = this::onEvent;

    Side(String id) {
      this.id = id;
      this.session = EtcdSession.builder().endpoints(endpoints).prefix(prefix).candidateId(id)
          .leaseTtl(ttl).resignHoldoff(holdoff).closeOnShutdown(false).build();
    }

    private void onEvent(LeadershipEvent ev) {
      if (ev.cause() == LeadershipEvent.Cause.SUBSCRIBED || !ev.isElected()) {
        return;
      }
      long now = System.nanoTime();
      firstElectedAt.compareAndSet(0, now);
      lastElectedAt.set(now);
      elected.incrementAndGet();
    }

    /** watch times the ELECTED events of election {@code i} (the handover trials' one). */
    void watch(int i) {
      elections.get(i).onLeadershipChanged(ev -> {
        if (ev.cause() == LeadershipEvent.Cause.ELECTED) {
          long now = System.nanoTime();
          synchronized (this) {
            watchedElectedAt.set(now);
            notifyAll();
          }
        }
      });
    }

    /** grow adds and starts elections until there are {@code n}. */
    void grow(int n) {
      for (int i = elections.size(); i < n; i++) {
        LeaderElector e = session.election(name(i));
        e.onLeadershipChanged(listener);
        e.start();
        elections.add(e);
      }
    }

    @Override
    public void close() {
      session.close();
    }
  }

  static String name(int i) {
    return "shard-" + i;
  }

  // ---- footprint and idle ----

  private void footprint(int[] counts) throws Exception {
    Side a = new Side("a");
    a.session.start();
    awaitTrue(a.session::isLive, "session a live");
    Thread.sleep(settleMs);
    Footprint f0 = Footprint.now(4);
    result("heap_bytes_0", f0.heap());
    result("threads_0", f0.threads());
    result("rss_bytes_0", f0.rss());
    for (int idx = 0; idx < counts.length; idx++) {
      int n = counts[idx];
      int before = a.elected.get();
      long t0 = System.nanoTime();
      growLeading(a, n);
      result("grow_to_" + n + "_ms", ms(a.lastElectedAt.get() - t0));
      result("grown_by_" + n, n - before);
      Thread.sleep(settleMs);
      Footprint f = Footprint.now(4);
      result("heap_bytes_" + n, f.heap());
      result("threads_" + n, f.threads());
      result("rss_bytes_" + n, f.rss());
      if (idx == 0 || idx == counts.length - 1) {
        out.println("IDLE " + n);
        expect("next");
        long t1 = System.nanoTime();
        try (Side b = new Side("b")) {
          b.session.start();
          awaitTrue(b.session::isLive, "session b live");
          growFollowing(b, n, "a");
          result("follow_" + n + "_ms", ms(System.nanoTime() - t1));
          out.println("IDLE_FOLLOWED " + n);
          expect("next");
        }
        out.println("FOLLOWER_CLOSED " + n);
        expect("next");
      }
    }
    result("leaders_lost", a.elections.stream().filter(e -> !e.isLeader()).count());
    a.close();
  }

  // ---- handover ----

  private void handover(int n, int trials, int warmup) throws Exception {
    Side a = new Side("a");
    Side b = new Side("b");
    int w = n / 2;
    result("batch", Math.min(batch, n));
    long t0 = System.nanoTime();
    if (batch >= n) {
      a.grow(n);
      a.session.start();
      awaitTrue(() -> a.elected.get() >= n, "all " + n + " elections of a elected");
    } else {
      a.session.start();
      awaitTrue(a.session::isLive, "session a live");
      growLeading(a, n);
    }
    result("first_leader_ms", ms(a.firstElectedAt.get() - t0));
    result("all_elected_ms", ms(a.lastElectedAt.get() - t0));
    long t1 = System.nanoTime();
    if (batch >= n) {
      b.grow(n);
      b.session.start();
      awaitAllFollow(b, "a");
    } else {
      b.session.start();
      awaitTrue(b.session::isLive, "session b live");
      growFollowing(b, n, "a");
    }
    result("all_follow_ms", ms(System.nanoTime() - t1));
    result("threads_total", ManagementFactory.getThreadMXBean().getThreadCount());
    Thread.sleep(settleMs);
    a.watch(w);
    b.watch(w);
    StringJoiner samples = new StringJoiner(",");
    Side leader = a;
    Side follower = b;
    for (int i = 0; i < warmup + trials; i++) {
      LeaderElector resigner = leader.elections.get(w);
      LeaderElector next = follower.elections.get(w);
      long t;
      synchronized (follower) {
        follower.watchedElectedAt.set(0);
        t = System.nanoTime();
        resigner.resign();
        long end = t + Duration.ofSeconds(30).toNanos();
        while (follower.watchedElectedAt.get() == 0) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            throw new IllegalStateException("trial " + i + ": " + follower.id + " not elected within 30 s");
          }
          follower.wait(Math.max(1, left / 1_000_000));
        }
      }
      if (i >= warmup) {
        samples.add(String.format("%.3f", ms(follower.watchedElectedAt.get() - t)));
      }
      long token = next.leadership().orElseThrow().fencingToken();
      awaitTrue(() -> resigner.currentLeader().map(x -> x.fencingToken() == token).orElse(false),
          "the resigner learns its successor");
      // The resigner sits out its hold-off; the next trial needs it campaigning again.
      Thread.sleep(holdoff.toMillis() + 300);
      Side s = leader;
      leader = follower;
      follower = s;
    }
    result("handover_ms", samples.toString());
    long others = 0;
    for (int i = 0; i < n; i++) {
      if (i != w && a.elections.get(i).isLeader()) {
        others++;
      }
    }
    result("others_still_led_by_a", others);
    result("others", n - 1);
    b.close();
    a.close();
  }

  /**
   * growLeading grows a leading session to {@code n} elections, {@code batch} at a time, each batch
   * elected before the next starts.
   */
  private void growLeading(Side s, int n) throws InterruptedException {
    while (s.elections.size() < n) {
      int to = (int) Math.min((long) s.elections.size() + batch, n);
      s.grow(to);
      awaitTrue(() -> s.elected.get() >= to, to + " elections of " + s.id + " elected");
    }
  }

  /** growFollowing grows a following session to {@code n}, {@code batch} at a time, each batch following. */
  private void growFollowing(Side s, int n, String leaderId) throws InterruptedException {
    while (s.elections.size() < n) {
      s.grow((int) Math.min((long) s.elections.size() + batch, n));
      awaitAllFollow(s, leaderId);
    }
  }

  private void awaitAllFollow(Side s, String leaderId) throws InterruptedException {
    awaitTrue(() -> s.elections.stream().allMatch(e -> {
      Optional<LeaderInfo> l = e.currentLeader();
      return l.isPresent() && l.get().candidateId().equals(leaderId);
    }), "all elections of " + s.id + " follow " + leaderId);
  }

  private interface Check {
    boolean ok();
  }

  private static void awaitTrue(Check c, String what) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (!c.ok()) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("not within " + WAIT + ": " + what);
      }
      Thread.sleep(10);
    }
  }

  private void expect(String cmd) throws Exception {
    String line = in.readLine();
    if (!cmd.equals(line)) {
      throw new IllegalStateException("expected " + cmd + " but read " + line);
    }
  }

  private void result(String name, Object value) {
    out.println("RESULT " + name + " " + (value instanceof Double d ? String.format("%.3f", d) : value));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

}
