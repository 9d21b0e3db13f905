package dev.leasehold.spring;

import dev.leasehold.HealthCheck;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * SpringHealthChecks makes the elector's {@link HealthCheck} from the starter's own properties
 * (PROTOCOL.md §4.5, "Yield when unhealthy"): {@code leasehold.health-check.readiness=true}
 * follows Spring Boot's readiness state (healthy while {@code ACCEPTING_TRAFFIC}), and {@code
 * leasehold.health-check.indicator=NAME} follows the named {@code HealthIndicator} of the health
 * registry (healthy while {@code UP}). At most one of the two; neither sets no check. Each answer
 * is read when the elector polls, on the elector's health thread.
 *
 * <p>Stateless and thread-safe.
 */
final class SpringHealthChecks {
  /** READINESS is the property that follows the readiness state. */
  static final String READINESS = "leasehold.health-check.readiness";
  /** INDICATOR is the property that names a health indicator to follow. */
  static final String INDICATOR = "leasehold.health-check.indicator";
  /** PREFIX is the start of the starter's own health-check properties, which core does not know. */
  static final String PREFIX = "leasehold.health-check.";
  private static final String REGISTRY = "org.springframework.boot.health.registry.HealthContributorRegistry";

  private SpringHealthChecks() {}

  /**
   * of is the check the properties ask for, or null for none.
   *
   * @throws LeaseholdPropertyException naming the property when it cannot be honoured
   */
  static HealthCheck of(Environment env, ApplicationContext context) {
    String readiness = env.getProperty(READINESS);
    String indicator = env.getProperty(INDICATOR);
    boolean followReadiness = readiness != null && !readiness.isBlank() && flag(readiness);
    boolean followIndicator = indicator != null && !indicator.isBlank();
    if (followReadiness && followIndicator) {
      throw new LeaseholdPropertyException(INDICATOR, INDICATOR + "=\"" + indicator + "\" and " + READINESS
          + "=true: set one of the two", null);
    }
    if (followReadiness) {
      ObjectProvider<ApplicationAvailability> availability = context.getBeanProvider(ApplicationAvailability.class);
      if (availability.getIfAvailable() == null) {
        throw new LeaseholdPropertyException(READINESS, READINESS + "=true needs Spring Boot's ApplicationAvailability"
            + " bean (ApplicationAvailabilityAutoConfiguration, on by default in a Boot application)", null);
      }
      return () -> availability.getObject().getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC;
    }
    if (followIndicator) {
      if (!ClassUtils.isPresent(REGISTRY, SpringHealthChecks.class.getClassLoader())) {
        throw new LeaseholdPropertyException(INDICATOR, INDICATOR + "=\"" + indicator + "\" needs Spring Boot's health"
            + " module (spring-boot-health, which spring-boot-starter-actuator brings)", null);
      }
      return IndicatorCheck.of(context, indicator.trim());
    }
    return null;
  }

  private static boolean flag(String v) {
    if (v.trim().equalsIgnoreCase("true")) {
      return true;
    }
    if (v.trim().equalsIgnoreCase("false")) {
      return false;
    }
    throw new LeaseholdPropertyException(READINESS, READINESS + "=\"" + v + "\": must be true or false", null);
  }
}
