package dev.leasehold.spring;

import dev.leasehold.HealthCheck;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.context.ApplicationContext;

/**
 * IndicatorCheck follows one named {@link HealthIndicator} of Spring Boot's health registry:
 * healthy while it reports {@code UP}. The registry and the indicator are looked up at each
 * answer, so an indicator registered after the elector's bean counts; a name the registry does
 * not know answers unhealthy, naming it. Loaded only when {@code leasehold.health-check.indicator}
 * is set, so the health module stays optional.
 *
 * <p>Stateless and thread-safe.
 */
final class IndicatorCheck {
  private IndicatorCheck() {}

  static HealthCheck of(ApplicationContext context, String name) {
    ObjectProvider<HealthContributorRegistry> registries = context.getBeanProvider(HealthContributorRegistry.class);
    return () -> {
      HealthContributorRegistry registry = registries.getIfAvailable();
      if (registry == null) {
        throw new IllegalStateException(SpringHealthChecks.INDICATOR + "=" + name
            + ": the context has no health registry (HealthContributorRegistryAutoConfiguration)");
      }
      HealthContributor c = registry.getContributor(name);
      if (!(c instanceof HealthIndicator indicator)) {
        throw new IllegalStateException(SpringHealthChecks.INDICATOR + "=" + name + ": the health registry has no"
            + " indicator of that name");
      }
      Status status = indicator.health().getStatus();
      if (!Status.UP.equals(status)) {
        throw new IllegalStateException("health indicator " + name + " is " + status);
      }
      return true;
    };
  }
}
