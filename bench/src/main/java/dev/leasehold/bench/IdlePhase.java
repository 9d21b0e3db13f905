package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.it.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * IdlePhase measures etcd's cost while idle: a baseline with no candidates, then, per contender and
 * candidate count, the proposals, RPCs and messages per second once a leader is elected and start-up
 * settled, and the leases left after close.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class IdlePhase extends BenchPhase {
  IdlePhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    List<String> eps = etcd.clientEndpoints();
    EtcdMetrics.Sample a = EtcdMetrics.scrape(eps);
    Thread.sleep(o.idleWindowSeconds() * 1000L);
    r.idleBaseline = EtcdMetrics.Rates.between(a, EtcdMetrics.scrape(eps));
    say(String.format("idle baseline (no candidates): %.2f proposals/s, %.2f RPCs/s",
        r.idleBaseline.proposalsPerSec(), r.idleBaseline.rpcsPerSec()));
    each(withVariants(), k -> {
      Map<Integer, EtcdMetrics.Rates> byCount = Collections.synchronizedMap(new TreeMap<>());
      r.idle.put(k, byCount);
      for (int n : o.idleCounts()) {
        if (!o.parallel()) {
          awaitNoLeases("idle " + k.label() + " x" + n);
        }
        try (Group g = new Group(o.logDir().resolve("idle"))) {
          String key = key("idle", k);
          List<String> jvm = new ArrayList<>(o.childJvm());
          if (n > 20) {
            jvm.add("-Xmx1g");
          }
          Group.Child c = g.launch(k.name().toLowerCase() + "-idle-" + n, ContenderMain.class.getName(), jvm,
              contenderArgs(k, eps, key, "idle", o.idleTtl(), n));
          g.await(0, e -> e.is("READY"), Duration.ofSeconds(60));
          g.await(0, e -> e.is("ELECTED"), Duration.ofSeconds(60));
          // Let start-up traffic (leases granted by the losers and revoked) settle first.
          Thread.sleep(o.idleSettleSeconds() * 1000L);
          int mark = g.mark();
          EtcdMetrics.Sample s1 = EtcdMetrics.scrape(eps);
          Thread.sleep(o.idleWindowSeconds() * 1000L);
          EtcdMetrics.Sample s2 = EtcdMetrics.scrape(eps);
          EtcdMetrics.Rates rates = EtcdMetrics.Rates.between(s1, s2);
          if (g.find(mark, e -> e.is("LOST") || e.is("ELECTED"), Duration.ZERO).isPresent()) {
            r.problems.add("idle " + k.label() + " x" + n + ": leadership changed during the window");
          }
          byCount.put(n, rates);
          say(String.format("idle %s x%d: %.2f proposals/s, %.1f RPCs/s, %.1f msgs/s", k.label(), n,
              rates.proposalsPerSec(), rates.rpcsPerSec(), rates.messagesPerSec()));
          c.close(Duration.ofSeconds(15));
        }
        if (!o.parallel()) {
          // close() of every candidate has returned: what is left was not revoked.
          r.leasesLeftAfterIdle.computeIfAbsent(k, x -> Collections.synchronizedMap(new TreeMap<>()))
              .put(n, EtcdMetrics.leases(etcd.clientEndpoints().get(0)));
        }
      }
    });
  }
}
