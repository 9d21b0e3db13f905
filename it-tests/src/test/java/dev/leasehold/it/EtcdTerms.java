package dev.leasehold.it;

import dev.leasehold.Guarantee;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * EtcdTerms samples electors every millisecond or so on its own thread and counts the instants at
 * which more than one of them held a valid term with guarantee DISTRIBUTED (an etcd term), and the
 * distinct etcd terms it saw. Thread-safe: counters are atomic, the sampler is one thread.
 */
final class EtcdTerms implements AutoCloseable {
  private final List<? extends LeaderElector> electors;
  private final AtomicInteger overlaps = new AtomicInteger();
  private final Set<Long> tokens = ConcurrentHashMap.newKeySet();
  private final Thread sampler;
  private volatile boolean running = true;

  EtcdTerms(List<? extends LeaderElector> electors) {
    this.electors = electors;
    this.sampler = new Thread(this::run, "etcd-terms-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void run() {
    while (running) {
      int valid = 0;
      for (LeaderElector e : List.copyOf(electors)) {
        Leadership t = e.leadership().orElse(null);
        if (t != null && t.guarantee() == Guarantee.DISTRIBUTED && t.isValid()) {
          valid++;
          tokens.add(t.fencingToken());
        }
      }
      if (valid > 1) {
        overlaps.incrementAndGet();
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(1); // a sampling period, not a wait for a condition
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** overlaps is how many samples saw two or more valid etcd terms. */
  int overlaps() {
    return overlaps.get();
  }

  /** count is how many distinct etcd terms (fencing tokens) the samples saw. */
  int count() {
    return tokens.size();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    sampler.join(5_000);
  }
}
