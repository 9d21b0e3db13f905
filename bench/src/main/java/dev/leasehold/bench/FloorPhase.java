package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.it.EtcdCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * FloorPhase measures the floor: raw etcd round trips and the bare handover paths, with no election
 * library in between ({@link Floor}), into {@link Results#floor} and {@link Results#floorHops}.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class FloorPhase extends BenchPhase {
  FloorPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    Floor f = new Floor(etcd.clientEndpoints(), o.handoverTtl(), o.pathSamples());
    Map<String, List<Double>> m = f.run(o.floorSamples(), Math.max(5, o.floorSamples() / 10));
    // The handover-path figures use their own (smaller) count: each trial is a full handover.
    r.floor.putAll(m);
    r.floorHops.putAll(f.hops());
    if (o.pathSamples() < o.floorSamples()) {
      for (String k : List.of(Floor.PATH_GRANT_TXN, Floor.PATH_STANDBY, Floor.PATH_READ)) {
        List<Double> l = r.floor.get(k);
        if (l != null && l.size() > o.pathSamples()) {
          r.floor.put(k, new ArrayList<>(l.subList(0, o.pathSamples())));
        }
      }
    }
    for (Map.Entry<String, List<Double>> e : r.floor.entrySet()) {
      say(String.format("floor %s: p50 %.2f ms", e.getKey(), Stats.of(e.getValue()).p50()));
    }
  }
}
