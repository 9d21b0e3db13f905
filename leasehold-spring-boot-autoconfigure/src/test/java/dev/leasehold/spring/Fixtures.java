package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Fixtures: a context on the local backend, and beans with leader-only methods. */
final class Fixtures {
  static final String KEY = "/spring-test/jobs";

  private Fixtures() {}

  /** runner is a context on the local backend whose store is {@code store} (never closed by it). */
  static ApplicationContextRunner runner(LocalStore store) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(LeaseholdAutoConfiguration.class, LeaseholdActuatorAutoConfiguration.class))
        .withPropertyValues(
            "leasehold.backends=local", "leasehold.key=" + KEY, "leasehold.candidate-id=context",
            "leasehold.ttl=2s")
        // The test's store outlives each context: no inferred close().
        .withBean(LocalStore.class, () -> store, bd -> bd.setDestroyMethodName(""));
  }

  /** outsider is a started elector on {@code store} outside any context, for the context's rival. */
  static LeaderElector outsider(LocalStore store) throws InterruptedException {
    LeaderElector e =
        LocalLeaderElector.builder().store(store).electionKey(KEY).candidateId("outsider")
            .leaseTtl(Duration.ofSeconds(2)).build();
    e.start();
    if (e.awaitLeadership(Duration.ofSeconds(10)).isEmpty()) {
      throw new AssertionError("the outsider did not lead");
    }
    return e;
  }

  /** Jobs has leader-only methods; public and non-final, for the class proxy. */
  public static class Jobs {
    // Read through methods: the test holds the class proxy, whose own fields are unset.
    private final AtomicInteger runs = new AtomicInteger();
    private final CountDownLatch blocking = new CountDownLatch(1);

    /** runs is how many times a method ran. */
    public int runs() {
      return runs.get();
    }

    /** awaitBlocking waits until {@link #block()} runs. */
    public boolean awaitBlocking() throws InterruptedException {
      return blocking.await(5, TimeUnit.SECONDS);
    }

    /** work counts its runs. */
    @LeaderOnly
    public String work() {
      runs.incrementAndGet();
      return "ran";
    }

    /** count returns a primitive, which a skipped call must still give. */
    @LeaderOnly
    public int count() {
      return runs.incrementAndGet();
    }

    /** token returns the token of the term it was handed. */
    @LeaderOnly(fenced = true)
    public long token(String label, Leadership term) {
      return term.fencingToken();
    }

    /** current returns the token CurrentLeadership gives a no-argument fenced method. */
    @LeaderOnly(fenced = true)
    public long current() {
      return CurrentLeadership.get().fencingToken();
    }

    /** block waits until interrupted (or 10 s), and says whether it was interrupted. */
    @LeaderOnly(fenced = true)
    public boolean block() {
      blocking.countDown();
      try {
        Thread.sleep(TimeUnit.SECONDS.toMillis(10));
        return false;
      } catch (InterruptedException e) {
        return true;
      }
    }
  }

  /** UnfencedTerm asks for a term without fenced = true, which is refused at start-up. */
  public static class UnfencedTerm {
    /** work would never get its term. */
    @LeaderOnly
    public void work(Leadership term) {}
  }

  /** PrivateJob has a leader-only method no proxy can reach, which is refused at start-up. */
  public static class PrivateJob {
    @LeaderOnly
    private void work() {}

    /** run calls the private method, so the compiler sees it used. */
    public void run() {
      work();
    }
  }
}
