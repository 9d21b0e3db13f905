package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two sessions of 30 elections each on a real 3-member etcd, through an etcd leader's crash, a
 * member's pause and a whole-cluster freeze: no election ever has two leaders, tokens rise
 * from term to term, and every election has a leader again after each fault.
 */
class EtcdSessionFaultsIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(3);
  private static final Logger log = LoggerFactory.getLogger(EtcdSessionFaultsIT.class);
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int N = 30;

  private final List<LeadershipEvent> elected = new CopyOnWriteArrayList<>();
  private final List<String> electedKeys = new CopyOnWriteArrayList<>();

  private EtcdSession session(String id) {
    return EtcdSession.builder()
        .endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new))
        .prefix("/it/session-faults/").candidateId(id).leaseTtl(TTL).build();
  }

  private List<LeaderElector> elections(EtcdSession s) {
    List<LeaderElector> out = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      LeaderElector e = s.election("e" + i);
      String key = "e" + i;
      e.onLeadershipChanged(ev -> {
        if (ev.cause() == Cause.ELECTED) {
          synchronized (elected) {
            elected.add(ev);
            electedKeys.add(key);
          }
        }
      });
      e.start();
      out.add(e);
    }
    return out;
  }

  private static Optional<Long> token(LeaderElector e) {
    return e.leadership().filter(Leadership::isValid).map(Leadership::fencingToken);
  }

  @Test
  void noElectionEverHasTwoLeadersThroughEtcdFaults() throws Exception {
    try (EtcdSession a = session("a"); EtcdSession b = session("b")) {
      List<LeaderElector> ea = elections(a);
      List<LeaderElector> eb = elections(b);
      a.start();
      b.start();
      awaitAllLed(ea, eb);
      AtomicLong overlaps = new AtomicLong();
      AtomicLong samples = new AtomicLong();
      AtomicBoolean run = new AtomicBoolean(true);
      Thread sampler = new Thread(() -> {
        while (run.get()) {
          for (int i = 0; i < N; i++) {
            Optional<Long> b1 = token(eb.get(i));
            boolean a1 = ea.get(i).isLeader();
            Optional<Long> b2 = token(eb.get(i));
            if (a1 && b1.isPresent() && b1.equals(b2)) {
              overlaps.incrementAndGet();
              log.error("e{}: a and b both lead (b's token {})", i, b1.get());
            }
          }
          samples.incrementAndGet();
        }
      }, "overlap-sampler");
      sampler.start();
      try {
        EtcdMember leader = ETCD.cluster().awaitLeader(WAIT);
        log.info("fault 1: kill the etcd leader {}", leader);
        leader.kill();
        ETCD.cluster().awaitLeader(WAIT);
        leader.start();
        ETCD.cluster().awaitHealthy(WAIT);
        awaitAllLed(ea, eb);

        EtcdMember follower = ETCD.cluster().members().stream()
            .filter(m -> !m.equals(ETCD.cluster().awaitLeader(WAIT))).findFirst().orElseThrow();
        log.info("fault 2: pause {} for 2 TTLs", follower);
        follower.pause();
        long until = System.nanoTime() + 2 * TTL.toNanos();
        await().atMost(WAIT).until(() -> System.nanoTime() > until);
        follower.resume();
        awaitAllLed(ea, eb);

        log.info("fault 3: freeze every member past the TTL");
        ETCD.cluster().members().forEach(EtcdMember::pause);
        await().atMost(WAIT).until(() -> ea.stream().noneMatch(LeaderElector::isLeader)
            && eb.stream().noneMatch(LeaderElector::isLeader));
        ETCD.cluster().members().forEach(EtcdMember::resume);
        ETCD.cluster().awaitHealthy(WAIT);
        awaitAllLed(ea, eb);
      } finally {
        run.set(false);
        sampler.join();
        ETCD.cluster().restoreAll();
      }
      log.info("{} sampling rounds of {} elections, {} overlaps, {} terms", samples.get(), N, overlaps.get(),
          elected.size());
      assertTrue(samples.get() > 100, "the sampler ran");
      assertEquals(0, overlaps.get(), "elections with two leaders at once");
      assertTokensRise();
    }
  }

  private static void awaitAllLed(List<LeaderElector> ea, List<LeaderElector> eb) {
    await().atMost(WAIT).until(() -> {
      for (int i = 0; i < N; i++) {
        if ((ea.get(i).isLeader() ? 1 : 0) + (eb.get(i).isLeader() ? 1 : 0) != 1) {
          return false;
        }
      }
      return true;
    });
  }

  /** Each election's terms, in the order they began, have strictly rising tokens. */
  private void assertTokensRise() {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < elected.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingLong(i -> elected.get(i).nanoTime()));
    for (int e = 0; e < N; e++) {
      String key = "e" + e;
      long last = 0;
      int terms = 0;
      for (int i : order) {
        if (electedKeys.get(i).equals(key)) {
          long t = elected.get(i).fencingToken().orElseThrow();
          assertTrue(t > last, key + ": token " + t + " after " + last);
          last = t;
          terms++;
        }
      }
      assertTrue(terms >= 1, key + " was led");
    }
  }
}
