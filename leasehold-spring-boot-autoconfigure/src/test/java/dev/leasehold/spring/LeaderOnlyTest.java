package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** @LeaderOnly, against a real election on the local backend. */
class LeaderOnlyTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void aLeaderOnlyMethodIsSkippedOnAFollowerAndRunsOnceItLeads() throws Exception {
    LeaderElector outsider = Fixtures.outsider(store);
    try {
      Fixtures.runner(store).withBean(Fixtures.Jobs.class).run(context -> {
        Fixtures.Jobs jobs = context.getBean(Fixtures.Jobs.class);
        LeaderElector elector = context.getBean(LeaderElector.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> elector.currentLeader().isPresent());
        assertThat(jobs.work()).isNull();
        assertThat(jobs.count()).isZero();
        assertThat(jobs.runs()).isZero();

        outsider.close();
        await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
        assertThat(jobs.work()).isEqualTo("ran");
        assertThat(jobs.runs()).isEqualTo(1);
      });
    } finally {
      outsider.close();
    }
  }

  @Test
  void aFencedMethodGetsItsTermInItsParameterAndThroughCurrentLeadership() {
    Fixtures.runner(store).withBean(Fixtures.Jobs.class).run(context -> {
      Fixtures.Jobs jobs = context.getBean(Fixtures.Jobs.class);
      LeaderElector elector = context.getBean(LeaderElector.class);
      long token = elector.awaitLeadership(Duration.ofSeconds(10)).orElseThrow().fencingToken();
      assertThat(jobs.token("caller passes null", null)).isEqualTo(token);
      assertThat(jobs.current()).isEqualTo(token);
      assertThat(CurrentLeadership.find()).as("unbound after the call").isEmpty();
    });
  }

  @Test
  void aRunningCallIsInterruptedWhenItsTermEndsAndItsThreadIsLeftClean() {
    Fixtures.runner(store).withBean(Fixtures.Jobs.class).run(context -> {
      Fixtures.Jobs jobs = context.getBean(Fixtures.Jobs.class);
      LeaderElector elector = context.getBean(LeaderElector.class);
      elector.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      CompletableFuture<Boolean> threadClean = new CompletableFuture<>();
      CompletableFuture<Boolean> interrupted =
          CompletableFuture.supplyAsync(() -> {
            boolean r = jobs.block();
            threadClean.complete(!Thread.currentThread().isInterrupted());
            return r;
          });
      assertThat(jobs.awaitBlocking()).isTrue();
      long lost = System.nanoTime();
      store.faults().expireLeaseOf(Fixtures.KEY); // the store ends the term: LEASE_REVOKED
      assertThat(interrupted.get(5, TimeUnit.SECONDS)).isTrue();
      assertThat((System.nanoTime() - lost) / 1e9).isLessThan(2.0);
      assertThat(threadClean.get(1, TimeUnit.SECONDS)).isTrue();
      assertThat(context.getBean(LeaderOnlyCalls.class).runningCount()).isZero();
    });
  }

  @Test
  void aLeadershipParameterWithoutFencedIsRefusedAtStartUp() {
    Fixtures.runner(store).withBean(Fixtures.UnfencedTerm.class).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("which only @LeaderOnly(fenced = true) fills"));
  }

  @Test
  void aPrivateLeaderOnlyMethodIsRefusedAtStartUp() {
    Fixtures.runner(store).withBean(Fixtures.PrivateJob.class).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("must be neither private, final nor static"));
  }

  @Test
  void withoutAnElectorLeaderOnlyMethodsAreSkippedNotRunEverywhere() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
        .withPropertyValues("leasehold.enabled=false")
        .withBean(Fixtures.Jobs.class)
        .run(context -> {
          Fixtures.Jobs jobs = context.getBean(Fixtures.Jobs.class);
          assertThat(jobs.work()).isNull();
          assertThat(jobs.runs()).isZero();
          assertThat(Optional.ofNullable(context.getBeanProvider(LeaderElector.class).getIfAvailable())).isEmpty();
        });
  }
}
