package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * SessionPhase measures many elections on one {@code EtcdSession} in one forked JVM ({@link
 * SessionMain}) against the targets: heap and threads as the session grows to each
 * count, etcd's idle cost at the smallest and the largest count (led by one session, then with a
 * second session following every election), and one election's handover between two sessions
 * with one election each and with the largest count each.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class SessionPhase extends BenchPhase {
  /** Options are the session phase's knobs. */
  record Options(List<Integer> counts, int ttlSeconds, int trials, int warmup, int windowSeconds,
      int batch, List<String> childJvm) {
    int largest() {
      return counts.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    int smallest() {
      return counts.stream().mapToInt(Integer::intValue).min().orElse(1);
    }
  }

  private static final Duration LONG = Duration.ofMinutes(15);
  private final Options so;

  SessionPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
    this.so = o.session();
  }

  @Override
  void run() throws Exception {
    SessionResults s = new SessionResults();
    r.session = s;
    List<String> eps = etcd.clientEndpoints();
    awaitNoLeases("session baseline");
    EtcdMetrics.Sample a = EtcdMetrics.scrape(eps);
    Thread.sleep(so.windowSeconds() * 1000L);
    s.baseline = EtcdMetrics.Rates.between(a, EtcdMetrics.scrape(eps));
    say(String.format("session baseline (no clients): %.2f proposals/s, %.2f msgs/s",
        s.baseline.proposalsPerSec(), s.baseline.messagesPerSec()));
    footprint(s, eps);
    for (int n : List.of(so.smallest(), so.largest())) {
      if (!s.handover.containsKey(n)) {
        handover(s, eps, n);
      }
    }
  }

  private void footprint(SessionResults s, List<String> eps) {
    awaitNoLeasesQuietly("session footprint");
    String counts = String.join(",", so.counts().stream().map(String::valueOf).toList());
    try (Group g = new Group(o.logDir().resolve("session"))) {
      g.launch("session-footprint", SessionMain.class.getName(), so.childJvm(),
          List.of("--mode=footprint", "--endpoints=" + String.join(",", eps),
              "--prefix=" + key("session", Kind.LEASEHOLD) + "/", "--counts=" + counts,
              "--ttl-seconds=" + so.ttlSeconds(), "--settle-ms=" + o.groupSettleMillis(),
              "--batch=" + so.batch()));
      int from = 0;
      while (true) {
        Group.Ev ev = g.await(from, e -> e.is("EXITED") || e.is("LINE")
            && (e.detail().startsWith("IDLE ") || e.detail().equals("DONE")), LONG);
        from = ev.seq() + 1;
        if (!ev.is("LINE") || ev.detail().equals("DONE")) {
          break;
        }
        int n = Integer.parseInt(ev.detail().substring("IDLE ".length()));
        Group.Child c = ev.child();
        say("session idle: " + n + " elections led by one session");
        s.idle.put(n + " elections, 1 session", window(eps));
        c.send("next");
        from = g.await(from, e -> e.is("EXITED") || e.is("LINE") && e.detail().startsWith("IDLE_FOLLOWED "),
            LONG).seq() + 1;
        say("session idle: " + n + " elections, a second session following them all");
        s.idle.put(n + " elections, 2 sessions (1 leads, 1 follows)", window(eps));
        c.send("next");
        from = g.await(from, e -> e.is("EXITED") || e.is("LINE") && e.detail().startsWith("FOLLOWER_CLOSED"),
            LONG).seq() + 1;
        c.send("next");
      }
      s.footprint.putAll(results(g));
    } catch (IOException | TimeoutException | InterruptedException | RuntimeException e) {
      s.failures.add("footprint: " + e);
      r.problems.add("session footprint: " + e);
    }
    say("session footprint: " + s.footprint);
    s.idle.forEach((k, v) -> say(String.format("session idle %s: %.2f proposals/s, %.2f msgs/s, by method %s",
        k, v.proposalsPerSec(), v.messagesPerSec(), v.messagesPerSecByMethod())));
  }

  private void handover(SessionResults s, List<String> eps, int n) {
    awaitNoLeasesQuietly("session handover x" + n);
    Map<String, String> values = new LinkedHashMap<>();
    s.handover.put(n, values);
    try (Group g = new Group(o.logDir().resolve("session"))) {
      g.launch("session-handover-" + n, SessionMain.class.getName(), so.childJvm(),
          List.of("--mode=handover", "--endpoints=" + String.join(",", eps),
              "--prefix=" + key("session-handover", Kind.LEASEHOLD) + "/", "--count=" + n,
              "--trials=" + so.trials(), "--warmup=" + so.warmup(), "--ttl-seconds=" + so.ttlSeconds(),
              "--settle-ms=" + o.groupSettleMillis(), "--batch=" + so.batch()));
      g.await(0, e -> e.is("EXITED") || e.is("LINE") && e.detail().equals("DONE"), LONG);
      values.putAll(results(g));
    } catch (TimeoutException | InterruptedException | RuntimeException e) {
      s.failures.add("handover x" + n + ": " + e);
      r.problems.add("session handover x" + n + ": " + e);
    }
    if (!values.containsKey("handover_ms")) {
      s.failures.add("handover x" + n + ": no handover figures (see " + o.logDir().resolve("session") + ")");
    }
    say("session handover x" + n + ": " + values);
  }

  /** window waits for start-up traffic to settle and measures etcd over one window. */
  private EtcdMetrics.Rates window(List<String> eps) throws InterruptedException {
    Thread.sleep(o.idleSettleSeconds() * 1000L);
    EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
    Thread.sleep(so.windowSeconds() * 1000L);
    return EtcdMetrics.Rates.between(s1, EtcdMetrics.scrape(eps));
  }

  private void awaitNoLeasesQuietly(String before) {
    try {
      awaitNoLeases(before);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** results collects the child's {@code RESULT name value} lines. */
  private static Map<String, String> results(Group g) throws InterruptedException {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; ; i++) {
      Optional<Group.Ev> line = g.find(i, e -> e.is("LINE") && e.detail().startsWith("RESULT "), Duration.ZERO);
      if (line.isEmpty()) {
        return values;
      }
      String[] f = line.get().detail().split(" ", 3);
      values.put(f[1], f.length > 2 ? f[2] : "");
      i = line.get().seq();
    }
  }
}
