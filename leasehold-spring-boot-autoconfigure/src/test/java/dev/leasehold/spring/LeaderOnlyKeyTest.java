package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.local.LocalStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @LeaderOnly(key)}'s configuration, with no store: the keys are found on the beans, and a
 * context that cannot give them a session fails at start-up naming the property. Spreading on
 * real etcd is {@code SpringKeyedJobsIT}'s.
 */
class LeaderOnlyKeyTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void closeStore() {
    store.close();
  }

  /** KeyedJob has one keyed leader-only method; public and non-final, for the class proxy. */
  public static class KeyedJob {
    /** report runs only where the "report" election is led. */
    @LeaderOnly(key = "report")
    public String report() {
      return "ran";
    }
  }

  @Test
  void aContextWithoutKeysOpensNoSession() {
    Fixtures.runner(store).withBean(Fixtures.Jobs.class).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(LeaderOnlyKeys.class).keys()).isEmpty();
    });
  }

  @Test
  void aKeyedMethodNeedsTheEtcdBackendAndSaysSoNamingTheProperty() {
    Fixtures.runner(store).withBean(KeyedJob.class).run(context -> {
      Throwable failure = context.getStartupFailure();
      assertThat(failure).isNotNull();
      Throwable cause = failure;
      while (!(cause instanceof LeaseholdPropertyException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertThat(cause).isInstanceOf(LeaseholdPropertyException.class);
      assertThat(((LeaseholdPropertyException) cause).property()).isEqualTo("leasehold.backends");
      assertThat(cause.getMessage()).contains("etcd alone", "local");
    });
  }

  @Test
  void aBadWeightIsRefusedNamingItsProperty() {
    Fixtures.runner(store).withBean(KeyedJob.class).withPropertyValues("leasehold.jobs.weight=0").run(context -> {
      Throwable cause = context.getStartupFailure();
      while (!(cause instanceof LeaseholdPropertyException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertThat(((LeaseholdPropertyException) cause).property()).isEqualTo("leasehold.jobs.weight");
      assertThat(cause.getMessage()).startsWith("leasehold.jobs.weight=\"0\"");
    });
  }

  @Test
  void theKeysAreFoundOnTheBeansAndAKeyedCallWithoutItsSessionIsSkipped() {
    Fixtures.runner(store).withBean(KeyedJob.class).withPropertyValues("leasehold.enabled=false").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(LeaderOnlyKeys.class).keys()).containsExactly("report");
      assertThat(context.getBean(KeyedJob.class).report()).as("fail closed").isNull();
    });
  }
}
