package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.it.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * HandoverPhase measures graceful handover: the leader resigns and the next leader's elected callback
 * ends the trial; with tracing on, the Leasehold kinds also record each handover hop by hop.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class HandoverPhase extends BenchPhase {
  private static final Duration RESIGN_WAIT = Duration.ofSeconds(5);

  HandoverPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    each(withVariants(), k -> {
      List<Double> samples = Collections.synchronizedList(new ArrayList<>());
      r.handover.put(k, samples);
      boolean traced = o.handoverTrace() && k.name().startsWith("LEASEHOLD");
      HandoverHops hops = new HandoverHops();
      if (traced) {
        r.handoverHops.put(k, hops);
      }
      try (Group g = new Group(o.logDir().resolve("handover"))) {
        String key = key("handover", k);
        List<String> jvm = new ArrayList<>(o.childJvm());
        if (traced) {
          jvm.add("-Dleasehold.trace=true");
        }
        List<Group.Child> cs = new ArrayList<>();
        for (int i = 0; i < o.candidates(); i++) {
          cs.add(g.launch(k.name().toLowerCase() + "-h" + i + "-" + UUID.randomUUID().toString().substring(0, 4),
              ContenderMain.class.getName(), jvm, contenderArgs(k, etcd.clientEndpoints(), key, "h" + i,
                  o.handoverTtl(), 1)));
        }
        for (Group.Child c : cs) {
          g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
        }
        g.awaitLeader(WAIT);
        settle();
        EtcdMetrics.Sample m1 = EtcdMetrics.scrape(etcd.clientEndpoints());
        int total = o.handoverWarmup() + o.handoverTrials();
        for (int i = 0; i < total; i++) {
          // Every candidate follows before t0: a JVM still starting would be measured at its first read.
          for (Group.Child c : g.awaitSettled(cs, WAIT)) {
            r.problems.add("handover " + k.label() + " trial " + i + ": " + c.label() + " did not know the leader"
                + " within its settle bound");
          }
          Group.Ev leader = g.awaitLeader(WAIT);
          int mark = g.mark();
          leader.child().send("resign");
          // A leading child answers at once. One that lost its term on its own just before (the
          // seed's keep-alive under load), its LOST line not yet read here, answers nothing: that
          // trial is a problem of the run, not an abort of the phase.
          Optional<Group.Ev> resigned =
              g.find(mark, e -> e.is("RESIGN") && e.child() == leader.child(), RESIGN_WAIT);
          if (resigned.isEmpty()) {
            r.problems.add("handover " + k.label() + " trial " + i + ": the leader no longer led when told"
                + " to resign (it lost its term on its own)");
            continue;
          }
          Group.Ev resign = resigned.get();
          Optional<Group.Ev> next = g.find(mark,
              e -> e.is("ELECTED") && e.child() != leader.child() && e.nanos() > resign.nanos(), WAIT);
          if (next.isEmpty()) {
            r.problems.add("handover " + k.label() + " trial " + i + ": no new leader within " + WAIT);
            continue;
          }
          double ms = (next.get().nanos() - resign.nanos()) / 1e6;
          if (i >= o.handoverWarmup()) {
            samples.add(ms);
          }
          g.await(mark, e -> e.is("LOST") && e.child() == leader.child(), WAIT);
          // Let the resigned candidate rejoin before the next trial.
          Thread.sleep(150 + ThreadLocalRandom.current().nextInt(100));
          if (traced) {
            List<List<HandoverHops.Mark>> marks = HandoverHops.drain(g, List.of(leader.child(), next.get().child()));
            if (i >= o.handoverWarmup()) {
              say(String.format("handover %s trial %d: %.2f ms, hops %s", k.label(), i, ms,
                  hops.add(resign.nanos(), next.get().nanos(), marks.get(0), marks.get(1))));
            }
          }
        }
        EtcdMetrics.Sample m2 = EtcdMetrics.scrape(etcd.clientEndpoints());
        EtcdMetrics.Rates rates = EtcdMetrics.Rates.between(m1, m2);
        r.proposalsPerHandover.put(k, (double) rates.proposalCount() / total);
      }
      Stats s = Stats.of(samples);
      say(String.format("handover %s: n=%d p50 %.1f ms p99 %.1f ms", k.label(), s.n(), s.p50(), s.p99()));
    });
  }
}
