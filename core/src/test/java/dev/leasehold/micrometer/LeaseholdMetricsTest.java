package dev.leasehold.micrometer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.local.LocalLeaderElector;
import dev.leasehold.local.LocalStore;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binder's meters, read back from a real Prometheus registry's text exposition. */
class LeaseholdMetricsTest {
  private static final String KEY = "/leasehold/metrics";
  private static final Duration SOON = Duration.ofSeconds(10);

  private final LocalStore store = LocalStore.create();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private LeaderElector a;
  private LeaderElector b;

  @AfterEach
  void closeEverything() {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
    store.close();
    registry.close();
  }

  private LeaderElector elector(String id) {
    return LocalLeaderElector.builder().store(store).electionKey(KEY).candidateId(id)
        .leaseTtl(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(200))
        .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).resignHoldoff(Duration.ofSeconds(1))
        .build();
  }

  @Test
  void prometheusShowsElectionsLeadershipTransitionsRenewalsAndOutagesByBackendAndKey() {
    a = elector("a");
    b = elector("b");
    // Two electors of one key in one registry need a tag to tell them apart.
    LeaseholdMetrics ma = new LeaseholdMetrics(a, Tags.of("instance", "a"));
    LeaseholdMetrics mb = new LeaseholdMetrics(b, Tags.of("instance", "b"));
    ma.bindTo(registry);
    mb.bindTo(registry);
    a.start();
    await().atMost(SOON).until(a::isLeader);
    b.start();
    await().atMost(SOON).until(() -> b.health().leader().isPresent());
    // b follows a and never led: no lost term on either side.
    assertEquals(0.0, value("leader_election_total", "b", "result", "lost").orElseThrow());
    assertEquals(0.0, value("leader_election_total", "a", "result", "lost").orElseThrow());

    assertEquals(1.0, value("leader_election_total", "a", "result", "elected").orElseThrow());
    assertEquals(0.0, value("leader_election_total", "a", "result", "failed").orElseThrow());
    assertEquals(1.0, value("leader_leading", "a").orElseThrow());
    assertEquals(0.0, value("leader_leading", "b").orElseThrow());
    assertTrue(value("leader_time_left_seconds", "a").orElseThrow() > 0, "a leads: time left");
    assertEquals(0.0, value("leader_time_left_seconds", "b").orElseThrow());
    assertEquals(1.0, value("leader_transitions_total", "a", "cause", "ELECTED").orElseThrow());
    await().atMost(SOON).until(
        () -> value("leader_renewal_seconds_count", "a", "role", "master").orElse(0) >= 1);
    assertTrue(value("leader_renewal_seconds_sum", "a", "role", "master").orElseThrow() >= 0);
    assertTrue(value("leader_renewal_age_seconds", "a").orElseThrow() >= 0);
    assertEquals(0.0, value("leader_store_unavailable", "a").orElseThrow());
    assertEquals(0.0, value("leader_fallback", "a").orElseThrow(), "a plain elector never falls back");
    assertEquals(0.0, value("leader_fallbacks_total", "a").orElseThrow());

    a.resign();
    await().atMost(SOON).until(b::isLeader);
    await().atMost(SOON).until(
        () -> value("leader_transitions_total", "a", "cause", "RESIGNED").orElse(0) == 1
            && value("leader_election_total", "b", "result", "elected").orElse(0) == 1);
    assertEquals(0.0, value("leader_leading", "a").orElseThrow());
    assertEquals(1.0, value("leader_election_total", "a", "result", "lost").orElseThrow(), "a's term ended");
    assertEquals(0.0, value("leader_election_total", "b", "result", "lost").orElseThrow(), "b's has not");

    store.faults().makeUnavailable();
    await().atMost(SOON).until(() -> value("leader_store_unavailable", "a").orElse(0) == 1
        && value("leader_store_outages_total", "a").orElse(0) == 1);
    // a follows: the outage cost it an election it could not take part in.
    await().atMost(SOON).until(() -> value("leader_election_total", "a", "result", "failed").orElse(0) == 1);
    store.faults().makeAvailable();
    await().atMost(SOON).until(() -> value("leader_store_unavailable", "a").orElse(1) == 0
        && value("leader_store_unavailable", "b").orElse(1) == 0);

    ma.close();
    mb.close();
    assertFalse(registry.scrape().contains("leader_leading"), "close removes the meters");
  }

  @Test
  void metersExistBeforeTheElectorStartsAndReportNoLeader() {
    a = elector("a");
    new LeaseholdMetrics(a).bindTo(registry);
    String text = registry.scrape();
    for (String result : List.of("elected", "lost", "failed")) {
      assertTrue(
          text.contains("leader_election_total{backend=\"local\",key=\"" + KEY + "\",result=\"" + result + "\"} 0.0"),
          text);
    }
    assertTrue(text.contains("leader_leading{backend=\"local\",key=\"" + KEY + "\"} 0.0"), text);
    assertTrue(text.contains("leader_renewal_age_seconds{backend=\"local\",key=\"" + KEY + "\"} NaN"), text);
  }

  // ---- reading the exposition ----

  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\} (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** value is the sample of {@code name} for instance {@code instance} with the given labels. */
  private OptionalDouble value(String name, String instance, String... labels) {
    Map<String, String> want = new TreeMap<>();
    want.put("backend", "local");
    want.put("key", KEY);
    want.put("instance", instance);
    for (int i = 0; i < labels.length; i += 2) {
      want.put(labels[i], labels[i + 1]);
    }
    return sample(registry.scrape(), name, want);
  }

  private OptionalDouble value(String name, String instance) {
    return value(name, instance, new String[0]);
  }

  static OptionalDouble sample(String text, String name, Map<String, String> want) {
    for (String line : text.split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      Map<String, String> got = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(2));
      while (l.find()) {
        got.put(l.group(1), l.group(2));
      }
      if (got.equals(want)) {
        return OptionalDouble.of(Double.parseDouble(m.group(3)));
      }
    }
    return OptionalDouble.empty();
  }
}
