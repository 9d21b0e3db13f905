package dev.leasehold.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * LeaseholdFailureAnalyzer turns a refused {@code leasehold.*} property into Boot's start-up
 * failure report, naming the property, instead of a stack of bean creation errors.
 *
 * <p>Stateless and thread-safe.
 */
public final class LeaseholdFailureAnalyzer extends AbstractFailureAnalyzer<LeaseholdPropertyException> {
  /** LeaseholdFailureAnalyzer is created by Boot from {@code META-INF/spring.factories}. */
  public LeaseholdFailureAnalyzer() {}

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, LeaseholdPropertyException cause) {
    return new FailureAnalysis(
        "Invalid Leasehold configuration: " + cause.getMessage(),
        "Update the application's configuration: fix '" + cause.property()
            + "' (see the leasehold.* properties in Leasehold's docs/spring-boot.md, section"
            + " Properties).",
        cause);
  }
}
