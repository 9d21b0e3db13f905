package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.micrometer.LeaseholdMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * LeaseholdActuatorAutoConfiguration adds the elector to the health endpoint ({@code
 * leasehold}, see {@link LeaseholdHealthIndicator} for UP / DOWN / OUT_OF_SERVICE; turned off
 * with {@code management.health.leasehold.enabled=false}) and to the info endpoint, when
 * Boot's health and actuator modules are on the class path.
 *
 * <p>Thread-safe, like every Spring configuration once the context is refreshed.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnBean({LeaderElector.class, ElectorLifecycle.class})
public class LeaseholdActuatorAutoConfiguration {
  /** LeaseholdActuatorAutoConfiguration is created by Spring. */
  public LeaseholdActuatorAutoConfiguration() {}

  /** HealthConfiguration registers the health indicator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnEnabledHealthIndicator("leasehold")
  static class HealthConfiguration {
    /** leaseholdHealthIndicator reports the elector as {@code leasehold}. */
    @Bean
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    LeaseholdHealthIndicator leaseholdHealthIndicator(LeaderElector elector, ElectorLifecycle lifecycle) {
      return new LeaseholdHealthIndicator(elector, lifecycle);
    }
  }

  /**
   * MetricsConfiguration registers core's {@link LeaseholdMetrics} as a {@code MeterBinder} bean
   * when Micrometer is on the class path, so Boot binds it to every {@code MeterRegistry} (the
   * Prometheus endpoint shows {@code leader_election_total{backend,result}} and the rest); the
   * context closes it with the elector.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  static class MetricsConfiguration {
    /** leaseholdMetrics binds the elector's meters. */
    @Bean
    @ConditionalOnMissingBean(LeaseholdMetrics.class)
    LeaseholdMetrics leaseholdMetrics(LeaderElector elector) {
      return new LeaseholdMetrics(elector);
    }
  }

  /** InfoConfiguration registers the info contributor. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.info.InfoContributor")
  static class InfoConfiguration {
    /** leaseholdInfoContributor describes the elector under {@code leasehold}. */
    @Bean
    @ConditionalOnMissingBean(name = "leaseholdInfoContributor")
    LeaseholdInfoContributor leaseholdInfoContributor(LeaderElector elector) {
      return new LeaseholdInfoContributor(elector);
    }
  }
}
