package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.LeaderElector;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bad leasehold.* values fail the start with the property's name, in Boot's failure report. */
class LeaseholdPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

  @Test
  void aTtlUnderOneSecondFailsTheStartNamingLeaseholdTtl() {
    runner
        .withPropertyValues("leasehold.backend=local", "leasehold.key=/jobs", "leasehold.ttl=200ms")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.ttl",
            "leasehold.ttl must be >= 1s, but was 200ms"));
  }

  @Test
  void aMissingKeyFailsTheStartNamingLeaseholdKey() {
    runner
        .withPropertyValues("leasehold.backend=local")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.key",
            "leasehold.key must be a non-blank string, but was null"));
  }

  @Test
  void etcdWithoutEndpointsFailsNamingLeaseholdEtcdEndpoints() {
    runner
        .withPropertyValues("leasehold.key=/jobs")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.etcd.endpoints",
            "leasehold.etcd.endpoints must name at least one etcd URL"));
  }

  @Test
  void aBadSecondEndpointIsNamedWithItsIndex() {
    runner
        .withPropertyValues("leasehold.key=/jobs",
            "leasehold.etcd.endpoints=http://127.0.0.1:2379,127.0.0.1:2380")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.etcd.endpoints[1]",
            "leasehold.etcd.endpoints[1] must be a URL like http://127.0.0.1:2379"));
  }

  @Test
  void aRelationBetweenFieldsNamesTheOneThatBreaksIt() {
    runner
        .withPropertyValues("leasehold.backend=local", "leasehold.key=/jobs", "leasehold.ttl=3s",
            "leasehold.rpc-timeout=1s")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.rpc-timeout",
            "leasehold.rpc-timeout must be < leaseTtl/3 (1s), but was 1s"));
  }

  @Test
  void jdbcWithoutAUrlFailsNamingLeaseholdJdbcUrl() {
    runner
        .withPropertyValues("leasehold.backend=jdbc", "leasehold.key=jobs")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.jdbc.url",
            "leasehold.jdbc.url must be a JDBC URL"));
  }

  @Test
  void jdbcFallsBackToSpringDatasourceUrlForItsOwnSession() {
    // Nothing listens on port 1: the elector starts, stays a follower and reports the outage.
    runner
        .withPropertyValues("leasehold.backend=jdbc", "leasehold.key=jobs",
            "spring.datasource.url=jdbc:mariadb://127.0.0.1:1/none")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(LeaderElector.class).config().electionKey()).isEqualTo("jobs");
        });
  }

  @Test
  void disabledMeansNoElector() {
    runner
        .withPropertyValues("leasehold.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderElector.class));
  }

  private static void assertRefused(Throwable failure, String property, String message) {
    assertThat(failure).isNotNull();
    FailureAnalysis analysis = new LeaseholdFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysis of %s", failure).isNotNull();
    assertThat(analysis.getDescription()).contains(message);
    assertThat(analysis.getAction()).contains("'" + property + "'");
    Throwable t = failure;
    while (!(t instanceof LeaseholdPropertyException)) {
      t = t.getCause();
    }
    assertThat(((LeaseholdPropertyException) t).property()).isEqualTo(property);
  }
}
