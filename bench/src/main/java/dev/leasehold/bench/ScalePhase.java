package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.TimeoutException;

/**
 * ScalePhase runs many Leasehold electors on one key in one JVM ({@link ScaleMain}): with a shared
 * client, with the standby lease off, and with one client per elector; each run records start-up,
 * idle cost, handovers and a leader close. With jetcd among the contenders, as many jetcd Election
 * candidates then start at once on one shared client, for the first leader's time side by side.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class ScalePhase extends BenchPhase {
  /** ELECTION_MODE names the jetcd Election cold-start row of the scale table. */
  static final String ELECTION_MODE = "jetcd Election, shared client";
  /** NO_STANDBY_MODE names the row of Leasehold electors on a shared client without standby leases. */
  static final String NO_STANDBY_MODE = "shared client, standbyLease off";

  ScalePhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    scaleRun("shared client", o.scaleCount(), true, true);
    scaleRun(NO_STANDBY_MODE, o.scaleCount(), true, false);
    if (o.scaleOwnClientCount() > 0) {
      scaleRun("one client per elector", o.scaleOwnClientCount(), false, true);
    }
    if (o.contenders().contains(Kind.JETCD)) {
      electionColdStart(o.scaleCount());
      coldStartRounds(o.scaleCount());
    }
  }

  /**
   * coldStartRounds repeats the two cold starts the target compares, {@code --scale-cold-rounds}
   * times, one after the other: Leasehold's (shared client, standby leases) in a fresh JVM, then
   * jetcd Election's. One cold start each decides nothing: the first leader comes either before
   * the herd's grants or behind them, so a single pair can fall either way.
   */
  private void coldStartRounds(int n) throws Exception {
    for (int i = 1; i <= o.scaleColdRounds(); i++) {
      Map<String, String> lh = leaseholdColdStart(n, i);
      Map<String, String> el = electionValues(n);
      r.coldStarts.add(new Results.ColdStart(i, Results.ScaleRun.number(lh.get("first_leader_ms")),
          Results.ScaleRun.number(lh.get("start_calls_ms")), Results.ScaleRun.number(el.get("first_leader_ms")),
          Results.ScaleRun.number(el.get("start_calls_ms"))));
      say("scale cold start round " + i + ": Leasehold " + lh.get("first_leader_ms") + " ms (start() calls "
          + lh.get("start_calls_ms") + " ms), jetcd Election " + el.get("first_leader_ms") + " ms (start() calls "
          + el.get("start_calls_ms") + " ms)");
    }
  }

  // One cold start of n Leasehold electors on a shared client with standby leases, in a fresh JVM
  // on a fresh key, with no handovers: its RESULT lines.
  private Map<String, String> leaseholdColdStart(int n, int round) throws Exception {
    awaitNoLeases("scale cold start round " + round);
    try {
      return coldStartOnly("scale-cold-" + n + "-round-" + round, "scale-cold", List.of(), n, true, true);
    } catch (IOException | TimeoutException | RuntimeException e) {
      r.problems.add("scale cold start round " + round + ", Leasehold: " + e);
      return Map.of();
    }
  }

  /**
   * coldStartOnly runs one ScaleMain cold start of {@code n} electors in a fresh JVM (with {@code
   * jvmOpts} added) on a fresh key under {@code keyPrefix}, with no handovers and no failover:
   * it closes its electors and exits. It returns the RESULT lines.
   */
  private Map<String, String> coldStartOnly(String name, String keyPrefix, List<String> jvmOpts, int n,
      boolean shared, boolean standby) throws Exception {
    List<String> eps = etcd.clientEndpoints();
    List<String> jvm = new ArrayList<>(List.of("-Xmx6g", "-XX:+UseSerialGC", "-Xss256k"));
    jvm.addAll(jvmOpts);
    try (Group g = new Group(o.logDir().resolve("scale"))) {
      Group.Child c = g.launch(name, ScaleMain.class.getName(), jvm,
          List.of("--endpoints=" + String.join(",", eps), "--key=" + key(keyPrefix, Kind.LEASEHOLD),
              "--count=" + n, "--shared-client=" + shared, "--standby=" + standby,
              "--ttl-seconds=" + o.scaleTtl(), "--handovers=0", "--settle-ms=" + o.groupSettleMillis(),
              "--pace-us=" + o.scalePaceMicros()));
      Duration long_ = Duration.ofMinutes(5);
      if (g.await(0, e -> e.is("LINE") && e.detail().equals("SETTLED") || e.is("EXITED"), long_).is("EXITED")) {
        throw new IllegalStateException("the scale JVM " + name + " exited before it settled (see its log in "
            + o.logDir() + ")");
      }
      // No handovers and no failover: it closes its electors and exits.
      c.send("none");
      c.send("none");
      g.await(0, e -> e.is("LINE") && e.detail().equals("DONE") || e.is("EXITED"), long_);
      return results(g);
    }
  }

  /**
   * electionColdStart starts {@code n} jetcd Election candidates at once on one shared, already
   * connected client (as ScaleMain's Leasehold electors are): the first leader's time side by
   * side, and what the cold start cost etcd.
   */
  private void electionColdStart(int n) throws Exception {
    Map<String, String> values = electionValues(n);
    String failure = values.get("failure");
    values.remove("failure");
    r.scale.add(new Results.ScaleRun(ELECTION_MODE, n, values, null, null, Double.NaN, failure));
    say("scale " + ELECTION_MODE + " x" + n + ": " + values);
  }

  // One cold start of n jetcd Election candidates: its figures, and "failure" if it failed.
  private Map<String, String> electionValues(int n) throws Exception {
    List<String> eps = etcd.clientEndpoints();
    awaitNoLeases("scale jetcd Election");
    Map<String, String> values = new LinkedHashMap<>();
    try (Group g = new Group(o.logDir().resolve("scale"))) {
      EtcdMetrics.Sample s0 = EtcdMetrics.scrape(eps);
      g.launch("scale-election-" + n, ContenderMain.class.getName(),
          List.of("-Xmx6g", "-XX:+UseSerialGC", "-Xss256k"),
          List.of("--kind=" + Kind.JETCD.name(), "--endpoints=" + String.join(",", eps),
              "--key=" + key("scale", Kind.JETCD), "--id=scale", "--ttl-seconds=" + o.scaleTtl(),
              "--count=" + n, "--shared-client=true", "--pace-us=" + o.scalePaceMicros()));
      Duration long_ = Duration.ofMinutes(5);
      Group.Ev start = g.await(0, e -> e.is("LINE") && e.detail().startsWith("STARTING ") || e.is("EXITED"), long_);
      Group.Ev first = g.await(start.seq(), e -> e.is("ELECTED") || e.is("EXITED"), long_);
      if (!start.is("LINE") || !first.is("ELECTED")) {
        throw new IllegalStateException("the jetcd Election JVM exited before a leader was elected");
      }
      long t0 = Long.parseLong(start.detail().substring("STARTING ".length()).trim());
      values.put("first_leader_ms", String.format("%.3f", (first.nanos() - t0) / 1e6));
      g.find(start.seq(), e -> e.is("LINE") && e.detail().startsWith("CPU_TO_FIRST_LEADER_MS "), Duration.ofSeconds(5))
          .ifPresent(e -> values.put("cold_start_jvm_cpu_to_first_ms", e.detail().split(" ")[1]));
      g.find(start.seq(), e -> e.is("LINE") && e.detail().startsWith("START_CALLS_MS "), Duration.ofMinutes(2))
          .ifPresent(e -> values.put("start_calls_ms", e.detail().split(" ")[1]));
      Thread.sleep(o.groupSettleMillis());
      EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
      values.put("start_proposals", String.format("%.0f", s1.proposals() - s0.proposals()));
      values.put("start_messages_by_method", byMethod(EtcdMetrics.Rates.between(s0, s1)));
    } catch (TimeoutException | RuntimeException e) {
      values.put("failure", e.toString());
      r.problems.add("scale jetcd Election x" + n + ": " + e);
    }
    return values;
  }

  // The request messages etcd received between two samples, per method.
  private static String byMethod(EtcdMetrics.Rates r) {
    StringJoiner sent = new StringJoiner(" ");
    r.messagesPerSecByMethod().forEach((m, perSec) -> sent.add(m + "=" + Math.round(perSec * r.seconds())));
    return sent.toString();
  }

  /**
   * tracedColdStart runs the same cold start again in a fresh JVM with {@code
   * -Dleasehold.trace=true}, on a fresh key, and adds its hop marks ({@code cold_start_hops}) and
   * its own first-leader and all-know times ({@code *_traced_ms}) to {@code values}: the hop
   * table's times are those of the traced run, which the trace slows.
   */
  private void tracedColdStart(String mode, int n, boolean shared, boolean standby, Map<String, String> values)
      throws Exception {
    awaitNoLeases("scale " + mode + ", traced");
    try {
      coldStartOnly("scale-" + (shared ? "shared" : "own") + (standby ? "" : "-nostandby") + "-" + n + "-traced",
          "scale-traced", List.of("-Dleasehold.trace=true"), n, shared, standby).forEach((name, value) -> {
            if (name.equals("cold_start_hops")) {
              values.put(name, value);
            } else if (name.equals("first_leader_ms") || name.equals("all_know_leader_ms")) {
              values.put(name.replace("_ms", "_traced_ms"), value);
            }
          });
    } catch (IOException | TimeoutException | RuntimeException e) {
      r.problems.add("scale " + mode + " x" + n + ", traced cold start: " + e);
    }
  }

  // The RESULT lines a scale JVM printed, name to value, in order.
  private static Map<String, String> results(Group g) throws InterruptedException {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; ; i++) {
      Optional<Group.Ev> line = g.find(i, e -> e.is("LINE") && e.detail().startsWith("RESULT "), Duration.ZERO);
      if (line.isEmpty()) {
        return out;
      }
      String[] f = line.get().detail().split(" ", 3);
      out.put(f[1], f.length > 2 ? f[2] : "");
      i = line.get().seq();
    }
  }

  private void scaleRun(String mode, int n, boolean shared, boolean standby) throws Exception {
    List<String> eps = etcd.clientEndpoints();
    awaitNoLeases("scale " + mode);
    Map<String, String> values = new LinkedHashMap<>();
    EtcdMetrics.Rates idle = null;
    EtcdMetrics.Rates idleLater = null;
    double perHandover = Double.NaN;
    String failure = null;
    try (Group g = new Group(o.logDir().resolve("scale"))) {
      EtcdMetrics.Sample s0 = EtcdMetrics.scrape(eps);
      Group.Child c = g.launch("scale-" + (shared ? "shared" : "own") + (standby ? "" : "-nostandby") + "-" + n,
          ScaleMain.class.getName(),
          // Untraced: the trace's events cost this JVM 1.3 to 1.9 s of a 1,000-elector cold start
          // (bench/HISTORY.md), and the jetcd Election row is not traced either. A second cold
          // start, traced, gives the hop table (tracedColdStart).
          List.of("-Xmx6g", "-XX:+UseSerialGC", "-Xss256k"),
          List.of("--endpoints=" + String.join(",", eps), "--key=" + key("scale", Kind.LEASEHOLD),
              "--count=" + n, "--shared-client=" + shared, "--standby=" + standby,
              "--ttl-seconds=" + o.scaleTtl(),
              "--handovers=" + o.scaleHandovers(), "--settle-ms=" + o.groupSettleMillis(),
              "--pace-us=" + o.scalePaceMicros()));
      Duration long_ = Duration.ofMinutes(5);
      if (g.await(0, e -> e.is("LINE") && e.detail().equals("SETTLED") || e.is("EXITED"), long_).is("EXITED")) {
        throw new IllegalStateException("the scale JVM exited before it settled (see its log in " + o.logDir() + ")");
      }
      EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
      // The cold start, from launch until settled: what a herd would show.
      values.put("start_proposals", String.format("%.0f", s1.proposals() - s0.proposals()));
      values.put("start_messages_by_method", byMethod(EtcdMetrics.Rates.between(s0, s1)));
      Thread.sleep(o.idleWindowSeconds() * 1000L);
      EtcdMetrics.Sample s2 = EtcdMetrics.scrape(eps);
      idle = EtcdMetrics.Rates.between(s1, s2);
      // A second window tells start-up leftovers (leases expiring once) from a steady cost.
      Thread.sleep(o.idleWindowSeconds() * 1000L);
      EtcdMetrics.Sample s2b = EtcdMetrics.scrape(eps);
      idleLater = EtcdMetrics.Rates.between(s2, s2b);
      s2 = s2b;
      c.send("handover");
      g.await(0, e -> e.is("LINE") && e.detail().startsWith("RESULT handover_ms") || e.is("EXITED"), long_);
      EtcdMetrics.Sample s3 = EtcdMetrics.scrape(eps);
      if (o.scaleHandovers() > 0) {
        perHandover = (s3.proposals() - s2.proposals()) / o.scaleHandovers();
      }
      c.send("failover");
      g.await(0, e -> e.is("LINE") && e.detail().startsWith("RESULT failover_all_know_ms") || e.is("EXITED"), long_);
      EtcdMetrics.Sample s4 = EtcdMetrics.scrape(eps);
      values.put("proposals_per_failover", String.format("%.0f", s4.proposals() - s3.proposals()));
      // Which requests the clients sent meanwhile, to tell a campaign from a grant or a put.
      values.put("failover_messages_by_method", byMethod(EtcdMetrics.Rates.between(s3, s4)));
      // Only now may the others close (their revokes are not the failover's).
      c.send("close");
      g.await(0, e -> e.is("LINE") && e.detail().equals("DONE") || e.is("EXITED"), long_);
      values.put("leases_left_after_close", Integer.toString(EtcdMetrics.leases(eps.get(0))));
      values.putAll(results(g));
    } catch (IOException | TimeoutException | RuntimeException e) {
      failure = e.toString();
      r.problems.add("scale " + mode + " x" + n + ": " + e);
    }
    if (failure == null && o.handoverTrace()) {
      tracedColdStart(mode, n, shared, standby, values);
    }
    r.scale.add(new Results.ScaleRun(mode, n, values, idle, idleLater, perHandover, failure));
    say("scale " + mode + " x" + n + ": " + values
        + (idle == null ? "" : String.format(" idle %.2f proposals/s, msgs/s by method %s", idle.proposalsPerSec(),
            idle.messagesPerSecByMethod()))
        + (idleLater == null ? "" : String.format("; next window %.2f proposals/s, msgs/s by method %s",
            idleLater.proposalsPerSec(), idleLater.messagesPerSecByMethod())));
  }
}
