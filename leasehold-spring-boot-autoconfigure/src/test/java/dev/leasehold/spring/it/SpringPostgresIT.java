package dev.leasehold.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.it.postgres.PostgresServer;
import dev.leasehold.spring.LeaseholdAutoConfiguration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter on a real PostgreSQL 15, configured as docs/backends.md shows: only
 * {@code spring.datasource.*} and {@code leasehold.backends=jdbc}. The elector opens its own
 * session with the datasource's URL and leads on the Postgres row.
 */
class SpringPostgresIT {
  @Test
  void theStarterTakesPostgresFromSpringDatasource() {
    try (PostgresServer db = PostgresServer.builder().name("SpringPostgresIT").start()) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
          .withPropertyValues(
              "spring.datasource.url=" + db.jdbcUrl(),
              "spring.datasource.username=" + db.superuser(),
              "spring.datasource.password=" + db.superuserPassword(),
              "leasehold.backends=jdbc",
              "leasehold.key=jobs/dispatcher",
              "leasehold.candidate-id=spring-pg",
              "leasehold.ttl=2s",
              "leasehold.jdbc.create-table=true")
          .run(context -> {
            assertThat(context).hasNotFailed();
            LeaderElector elector = context.getBean(LeaderElector.class);
            Leadership term = await().atMost(Duration.ofSeconds(20))
                .until(() -> elector.leadership().orElse(null), l -> l != null);
            assertThat(db.sql("SELECT candidate, epoch FROM leasehold_lease WHERE name = 'jobs/dispatcher'"))
                .isEqualTo(List.of(List.of("spring-pg", Long.toString(term.fencingToken()))));
          });
    }
  }
}
