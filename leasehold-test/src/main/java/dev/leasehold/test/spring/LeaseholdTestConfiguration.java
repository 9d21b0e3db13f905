package dev.leasehold.test.spring;

import dev.leasehold.test.VirtualElector;
import dev.leasehold.test.VirtualStore;
import dev.leasehold.test.VirtualTime;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * LeaseholdTestConfiguration is what {@link LeaseholdTest} imports: a virtual time and store, the
 * context's {@link dev.leasehold.LeaderElector} on them (so Leasehold's auto-configuration builds
 * none of its own), and the {@link LeadershipControl} that drives it.
 *
 * <p>Thread-safe, like every Spring configuration once the context is refreshed.
 */
@Configuration(proxyBeanMethods = false)
public class LeaseholdTestConfiguration {
  /** LeaseholdTestConfiguration is created by Spring. */
  public LeaseholdTestConfiguration() {}

  /** leaseholdVirtualTime is the time the elector runs on; only the control runs it. */
  @Bean
  VirtualTime leaseholdVirtualTime() {
    return VirtualTime.create();
  }

  /** leaseholdVirtualStore is the elector's store; closing it closes the elector. */
  @Bean(destroyMethod = "close")
  VirtualStore leaseholdVirtualStore(VirtualTime time) {
    return VirtualStore.create(time);
  }

  /** leaseholdElector is the context's elector, started and closed by Leasehold's lifecycle bean. */
  @Bean
  VirtualElector leaseholdElector(VirtualStore store, Environment environment) {
    return store.elector()
        .electionKey(environment.getProperty("leasehold.key", "/leasehold/test"))
        .candidateId(environment.getProperty("leasehold.candidate-id", "test"))
        .build();
  }

  /** leadershipControl grants and revokes the elector's terms. */
  @Bean
  LeadershipControl leadershipControl(VirtualElector leaseholdElector) {
    return new LeadershipControl(leaseholdElector);
  }
}
