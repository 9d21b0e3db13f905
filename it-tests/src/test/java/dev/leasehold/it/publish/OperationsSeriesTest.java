package dev.leasehold.it.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import dev.leasehold.micrometer.LeaseholdMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * OperationsSeriesTest keeps docs/operations.md's "Every series" true: the series a real
 * Prometheus scrape of {@link LeaseholdMetrics} shows (after an election, a renewal and a
 * resignation, so every lazily made series exists) are exactly those the page documents in bold.
 */
class OperationsSeriesTest {
  private static final Path PAGE = Path.of("..", "docs", "operations.md");
  private static final Pattern DOCUMENTED = Pattern.compile("\\*\\*`(leader_\\w+)");
  private static final Pattern SAMPLE = Pattern.compile("^(leader_\\w+?)(?:_count|_sum|_max)?\\{", Pattern.MULTILINE);

  @Test
  void everySeriesAScrapeShowsIsDocumentedAndNoOther() throws Exception {
    Set<String> documented = new TreeSet<>();
    Matcher d = DOCUMENTED.matcher(Files.readString(PAGE));
    while (d.find()) {
      documented.add(d.group(1));
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (LocalStore store = LocalStore.create()) {
      LeaderElector e = LocalLeaderElector.builder().store(store).electionKey("/series")
          .leaseTtl(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(100))
          .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build();
      try (LeaseholdMetrics metrics = new LeaseholdMetrics(e)) {
        metrics.bindTo(registry);
        e.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.scrape().contains("role=\"master\""));
        e.resign();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.scrape().contains("cause=\"RESIGNED\""));
        Set<String> scraped = new TreeSet<>();
        Matcher m = SAMPLE.matcher(registry.scrape());
        while (m.find()) {
          scraped.add(m.group(1));
        }
        assertTrue(scraped.size() >= 10, "a scrape of every kind of series: " + scraped);
        assertEquals(documented, scraped, "series in a scrape vs. those docs/operations.md documents");
      } finally {
        e.close();
      }
    } finally {
      registry.close();
    }
  }
}
