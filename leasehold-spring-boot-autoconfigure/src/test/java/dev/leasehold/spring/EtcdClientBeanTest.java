package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's jetcd Client: defined from leasehold.etcd.* when etcd is a configured backend and
 * the application has none, closed with the context. No etcd runs here: a client connects at
 * its first call, and none is made (SampleTwoInstancesIT uses the bean against a real etcd).
 */
class EtcdClientBeanTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
          .withPropertyValues("leasehold.key=/jobs", "leasehold.etcd.endpoints=http://127.0.0.1:1");

  @Test
  void etcdAsTheBackendDefinesAClientClosedWithTheContext() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Client.class).hasBean("leaseholdEtcdClient");
      assertThat(context.getBeanFactory().getBeanDefinition("leaseholdEtcdClient").getDestroyMethodName())
          .isEqualTo("close");
    });
  }

  @Test
  void anApplicationClientIsLeftAloneAndNoSecondIsDefined() {
    Client own = Client.builder().endpoints("http://127.0.0.1:1").build();
    try {
      runner.withBean("ownClient", Client.class, () -> own, bd -> bd.setDestroyMethodName(""))
          .run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Client.class).doesNotHaveBean("leaseholdEtcdClient");
            assertThat(context.getBean(Client.class)).isSameAs(own);
          });
    } finally {
      own.close();
    }
  }

  @Test
  void etcdAsAFallbackBackendDefinesOneToo() {
    runner.withPropertyValues("leasehold.backends=etcd,local", "leasehold.fallback=fall-back")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Client.class));
  }

  @Test
  void noClientWithoutEtcdAmongTheBackendsOrWithTheElectorDisabled() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
        .withPropertyValues("leasehold.key=/jobs", "leasehold.backends=local")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Client.class));
    runner.withPropertyValues("leasehold.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Client.class));
  }

  @Test
  void theClientIsRefusedWithCoresErrorNamingTheProperty() {
    // Credentials without a password: core's EtcdSettings refuses them, naming the property. The
    // application's own elector keeps the starter's from failing first.
    LocalStore store = LocalStore.create();
    runner.withPropertyValues("leasehold.etcd.user=orders")
        .withBean(LeaderElector.class,
            () -> LocalLeaderElector.builder().store(store).electionKey("/jobs").build())
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable t = context.getStartupFailure();
          while (t != null && !(t instanceof LeaseholdPropertyException)) {
            t = t.getCause();
          }
          assertThat(t).isNotNull();
          assertThat(((LeaseholdPropertyException) t).property()).startsWith("leasehold.etcd.");
          assertThat(t.getMessage()).contains("password");
          assertThat(context.getStartupFailure()).hasStackTraceContaining("leaseholdEtcdClient");
        });
    store.close();
  }
}
