package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeaderElector;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** Bad leasehold.* values fail the start with the property's name, in Boot's failure report. */
class LeaseholdPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

  @Test
  void aTtlUnderOneSecondFailsTheStartNamingLeaseholdTtl() {
    runner
        .withPropertyValues("leasehold.backends=local", "leasehold.key=/jobs", "leasehold.ttl=200ms")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.ttl",
            "leasehold.ttl=\"200ms\": leaseTtl must be >= 1s, but was 200ms"));
  }

  @Test
  void aMissingKeyFailsTheStartNamingLeaseholdKey() {
    runner
        .withPropertyValues("leasehold.backends=local")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.key",
            "leasehold.key must be a non-blank string, but was null"));
  }

  @Test
  void etcdWithoutEndpointsFailsNamingLeaseholdEtcdEndpoints() {
    runner
        .withPropertyValues("leasehold.key=/jobs")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.etcd.endpoints",
            "leasehold.etcd.endpoints must be set, since leasehold.backends names etcd, but was not"));
  }

  @Test
  void aBadSecondEndpointIsNamedWithItsIndex() {
    runner
        .withPropertyValues("leasehold.key=/jobs",
            "leasehold.etcd.endpoints=http://127.0.0.1:2379,127.0.0.1:2380")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.etcd.endpoints",
            "endpoints[1] must be a URL like http://127.0.0.1:2379"));
  }

  @Test
  void aRelationBetweenFieldsNamesTheOneThatBreaksIt() {
    runner
        .withPropertyValues("leasehold.backends=local", "leasehold.key=/jobs", "leasehold.ttl=3s",
            "leasehold.rpc-timeout=1s")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.rpc-timeout",
            "leasehold.rpc-timeout=\"1s\": rpcTimeout must be < leaseTtl/3 (1s), but was 1s"));
  }

  @Test
  void jdbcWithoutAUrlFailsNamingLeaseholdJdbcUrl() {
    runner
        .withPropertyValues("leasehold.backends=jdbc", "leasehold.key=jobs")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.jdbc.url",
            "leasehold.jdbc.url must be set, since leasehold.backends names jdbc, but was not"));
  }

  @Test
  void jdbcFallsBackToSpringDatasourceUrlForItsOwnSession() {
    // Nothing listens on port 1: the elector starts, stays a follower and reports the outage.
    runner
        .withPropertyValues("leasehold.backends=jdbc", "leasehold.key=jobs",
            "spring.datasource.url=jdbc:mariadb://127.0.0.1:1/none")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(LeaderElector.class).config().electionKey()).isEqualTo("jobs");
        });
  }

  @Test
  void aTypoInALeaseholdPropertyIsRefusedNotIgnored() {
    runner
        .withPropertyValues("leasehold.backends=local", "leasehold.key=/jobs", "leasehold.tll=5s")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.tll",
            "leasehold.tll is not a Leasehold property"));
  }

  @Test
  void aListOfEndpointsInYamlFormIsJoinedForCore() {
    runner
        .withPropertyValues("leasehold.key=/jobs", "leasehold.etcd.endpoints[0]=http://127.0.0.1:1",
            "leasehold.etcd.endpoints[1]=http://127.0.0.1:2")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaderElector.class));
  }

  @Test
  void severalBackendsUnderFailClosedAreRefusedNamingLeaseholdBackends() {
    runner
        .withPropertyValues("leasehold.backends=etcd,local", "leasehold.key=/jobs",
            "leasehold.etcd.endpoints=http://127.0.0.1:1")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.backends",
            "backends must name one backend under fallback fail-closed"));
  }

  @Test
  void environmentVariablesAreReadUnderCoresNames() {
    runner
        .withInitializer(c -> c.getEnvironment().getPropertySources().addFirst(
            new SystemEnvironmentPropertySource("systemEnvironment", Map.of(
                "LEASEHOLD_BACKENDS", "local", "LEASEHOLD_KEY", "/env-jobs",
                "LEASEHOLD_CANDIDATE_ID", "from-env", "LEASEHOLD_RETRY_BACKOFF_INITIAL", "200ms"))))
        .run(context -> {
          assertThat(context).hasNotFailed();
          ElectorConfig c = context.getBean(LeaderElector.class).config();
          assertThat(c.electionKey()).isEqualTo("/env-jobs");
          assertThat(c.candidateId()).isEqualTo("from-env");
          assertThat(c.retryBackoffInitial()).isEqualTo(Duration.ofMillis(200));
        });
  }

  @Test
  void theEtcdTlsChoicesAreCoresPropertiesAndTrustingTwoWaysIsRefused() {
    runner
        .withPropertyValues("leasehold.key=/jobs", "leasehold.etcd.endpoints=https://127.0.0.1:1",
            "leasehold.etcd.tls.ca=ca.pem", "leasehold.etcd.tls.jvm-default-trust=true")
        .run(context -> assertRefused(context.getStartupFailure(), "leasehold.etcd.tls.jvm-default-trust",
            "leasehold.etcd.tls.jvm-default-trust must be false when leasehold.etcd.tls.ca is set (trust one or the"
                + " other), but was true"));
    runner
        .withPropertyValues("leasehold.key=/jobs", "leasehold.etcd.endpoints=https://127.0.0.1:1",
            "leasehold.etcd.tls.jvm-default-trust=true")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaderElector.class));
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
    assertThat(analysis.getAction()).contains("'" + property + "'", "docs/spring-boot.md, section Properties");
    Throwable t = failure;
    while (!(t instanceof LeaseholdPropertyException)) {
      t = t.getCause();
    }
    assertThat(((LeaseholdPropertyException) t).property()).isEqualTo(property);
  }
}
