package dev.leasehold.bench;

import static dev.leasehold.bench.Bench.say;

import dev.leasehold.bench.contender.Kind;
import dev.leasehold.it.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * CrashPhase measures crash failover: the leader's JVM is SIGKILLed at a random point of its renewal
 * cycle, for every TTL, until the next leader's elected callback; a fresh candidate replaces it.
 *
 * <p>Not thread-safe: {@link Bench} runs it once, from one thread.
 */
final class CrashPhase extends BenchPhase {
  CrashPhase(Bench.Options o, Results r, EtcdCluster etcd) {
    super(o, r, etcd);
  }

  @Override
  void run() throws Exception {
    for (int ttl : o.crashTtls()) {
      Map<Kind, List<Double>> byKind = Collections.synchronizedMap(new EnumMap<>(Kind.class));
      r.crash.put(ttl, byKind);
      each(o.contenders(), k -> {
        List<Double> samples = Collections.synchronizedList(new ArrayList<>());
        byKind.put(k, samples);
        try (Group g = new Group(o.logDir().resolve("crash-ttl" + ttl))) {
          String key = key("crash", k);
          List<String> eps = etcd.clientEndpoints();
          startCandidates(g, k, key, ttl, o.candidates(), eps, "c");
          g.awaitLeader(WAIT);
          settle();
          // Handovers warm the candidates' code paths up before the first kill.
          for (int w = 0; w < o.crashWarmup(); w++) {
            Group.Ev l = g.awaitLeader(WAIT);
            int mark = g.mark();
            l.child().send("resign");
            g.await(mark, e -> e.is("ELECTED") && e.child() != l.child(), WAIT);
          }
          int spare = o.candidates();
          for (int i = 0; i < o.crashTrials(); i++) {
            Group.Ev leader = g.awaitLeader(WAIT);
            // Kill at a random point of the leader's renewal cycle.
            Thread.sleep(ThreadLocalRandom.current().nextLong(ttl * 500L) + 100);
            leader = g.awaitLeader(WAIT);
            Group.Child victim = leader.child();
            int mark = g.mark();
            long t0 = System.nanoTime();
            victim.kill();
            // The replacement starts now, while the lease runs out, so every trial starts with
            // the same number of candidates without waiting for a JVM start in between.
            Group.Child fresh = i == o.crashTrials() - 1 ? null : launchCandidate(g, k, key, ttl, eps, "c" + spare++);
            Optional<Group.Ev> next = g.find(mark, e -> e.is("ELECTED") && e.child() != victim,
                Duration.ofSeconds(3L * ttl + 10));
            if (next.isEmpty()) {
              r.problems.add("crash " + k.label() + " TTL " + ttl + " s trial " + i + ": no new leader");
            } else {
              samples.add((next.get().nanos() - t0) / 1e6);
            }
            if (fresh != null) {
              g.await(mark, e -> e.is("READY") && e.child() == fresh, WAIT);
            }
          }
        }
        Stats s = Stats.of(samples);
        say(String.format("crash %s TTL %d s: n=%d p50 %.0f ms p99 %.0f ms", k.label(), ttl, s.n(), s.p50(), s.p99()));
      });
    }
  }
}
