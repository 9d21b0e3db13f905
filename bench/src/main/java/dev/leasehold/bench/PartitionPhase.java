package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.it.EtcdCluster;
import dev.leasehold.it.chaos.ClientProxies;
import dev.leasehold.it.chaos.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * PartitionPhase measures the stale-leader window: the leader's TCP proxies to etcd blackhole every
 * byte, and the trial records when a new leader is elected and when the old one steps down.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class PartitionPhase extends BenchPhase {
  PartitionPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    int ttl = o.partitionTtl();
    double capMs = (3.0 * ttl + 5) * 1000;
    each(o.contenders(), k -> {
      List<Results.PartitionTrial> trials = Collections.synchronizedList(new ArrayList<>());
      r.partition.put(k, trials);
      Map<Group.Child, ClientProxies> proxies = new LinkedHashMap<>();
      try (Group g = new Group(o.logDir().resolve("partition"))) {
        String key = key("partition", k);
        List<Integer> ports = etcd.members().stream().map(m -> m.clientPort()).toList();
        for (int i = 0; i < o.candidates(); i++) {
          ClientProxies ps = ClientProxies.start(k.name().toLowerCase() + "-p" + i, ports);
          Group.Child c = launchCandidate(g, k, key, ttl, ps.endpoints(), "p" + i);
          proxies.put(c, ps);
        }
        for (Group.Child c : proxies.keySet()) {
          g.await(0, e -> e.is("READY") && e.child() == c, WAIT);
        }
        g.awaitLeader(WAIT);
        settle();
        for (int i = 0; i < o.partitionTrials(); i++) {
          Thread.sleep(ThreadLocalRandom.current().nextLong(ttl * 1000L / 3) + 200);
          Group.Ev leader = g.awaitLeader(WAIT);
          Group.Child victim = leader.child();
          int mark = g.mark();
          long t0 = System.nanoTime();
          proxies.get(victim).cut(TcpProxy.Mode.BLACKHOLE);
          Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
              Duration.ofMillis((long) capMs));
          long until = next.map(e -> e.nanos()).orElse(t0) + (long) (capMs * 1e6);
          Optional<Group.Ev> down = g.find(mark, e -> e.is("LOST") && e.child() == victim,
              Duration.ofNanos(Math.max(0, until - System.nanoTime())));
          proxies.get(victim).heal();
          if (next.isEmpty()) {
            r.problems.add("partition " + k.label() + " trial " + i + ": no new leader within " + capMs + " ms");
            continue;
          }
          double electedMs = (next.get().nanos() - t0) / 1e6;
          double downMs = down.map(e -> (e.nanos() - t0) / 1e6).orElse(electedMs + capMs);
          trials.add(new Results.PartitionTrial(electedMs, downMs, down.isPresent(), capMs));
          if (down.isEmpty()) {
            // It must step down once healed before it can count as a follower again.
            g.find(mark, e -> e.is("LOST") && e.child() == victim, Duration.ofSeconds(3L * ttl + 10));
          }
          say(String.format("partition %s trial %d: new leader %.0f ms, step-down %s, window %s", k.label(), i,
              electedMs, down.isPresent() ? String.format("%.0f ms", downMs) : "never",
              down.isPresent() ? String.format("%+.0f ms", downMs - electedMs) : "n/a"));
        }
      } finally {
        proxies.values().forEach(ClientProxies::close);
      }
    });
  }
}
