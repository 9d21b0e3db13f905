package dev.leasehold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ElectorConfigTest {
  private static ElectorConfig.Builder valid() {
    return ElectorConfig.builder().electionKey("/k");
  }

  private static String error(ElectorConfig.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void defaultsAreDocumentedValues() {
    ElectorConfig c = valid().build();
    assertEquals(Duration.ofSeconds(5), c.leaseTtl());
    assertEquals(Duration.ofMillis(500), c.safetyMargin());
    assertEquals(Duration.ofSeconds(1), c.pollInterval());
    assertEquals(Duration.ofSeconds(5), c.resignHoldoff());
    assertEquals(Duration.ofSeconds(1), c.rpcTimeout());
    assertEquals(Duration.ofMillis(500), valid().leaseTtl(Duration.ofSeconds(2)).build().rpcTimeout());
    assertTrue(c.candidateId().matches(".+-\\d+-[0-9a-z]+"), c.candidateId());
  }

  @Test
  void emptyKeyIsRejectedNamingTheField() {
    assertEquals("electionKey must be a non-blank string, but was \"\"", error(valid().electionKey("")));
    assertEquals("electionKey must be a non-blank string, but was null", error(ElectorConfig.builder()));
  }

  @Test
  void theNeutralConfigTakesAnyWholeMillisecondTtlAndLeavesTheUnitToTheBackend() {
    assertEquals(Duration.ofMillis(1500), valid().leaseTtl(Duration.ofMillis(1500)).build().leaseTtl());
    assertEquals(Duration.ofMillis(200), valid().leaseTtl(Duration.ofMillis(200)).build().leaseTtl());
    assertEquals(
        "leaseTtl must be a whole number of milliseconds, but was 1.5005s",
        error(valid().leaseTtl(Duration.ofNanos(1_500_500_000))));
    assertEquals("leaseTtl must be > 0, but was 0ms", error(valid().leaseTtl(Duration.ZERO)));
  }

  @Test
  void marginThatLeavesNoTimeToRenewIsRejected() {
    String m = error(valid().leaseTtl(Duration.ofSeconds(3)).safetyMargin(Duration.ofSeconds(1)));
    assertTrue(m.startsWith("safetyMargin leaves no time to renew"), m);
    assertTrue(m.endsWith("but was 1s"), m);
  }

  @Test
  void otherBadValuesNameTheirField() {
    assertTrue(error(valid().maxDriftRate(0.5)).startsWith("maxDriftRate must be in [0, 0.1)"));
    assertTrue(error(valid().pollInterval(Duration.ZERO)).startsWith("pollInterval must be > 0"));
    assertEquals(
        "rpcTimeout must be < leaseTtl/3 (1.666s), but was 2s",
        error(valid().rpcTimeout(Duration.ofSeconds(2))));
    assertTrue(
        error(valid().retryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
            .startsWith("retryBackoffMax must be >= retryBackoffInitial"));
    assertTrue(error(valid().candidateId(" ")).startsWith("candidateId must be non-blank"));
  }

  @Test
  void missingDurationsAreRejectedNamingTheField() {
    assertEquals("leaseTtl must be set, but was null", error(valid().leaseTtl(null)));
    assertEquals("pollInterval must be set, but was null", error(valid().pollInterval(null)));
    assertEquals(
        "retryBackoffInitial must be set, but was null",
        error(valid().retryBackoff(null, Duration.ofSeconds(1))));
  }

  @Test
  void durationsTooLargeForTheStoreOrTheClockAreRejectedNamingTheField() {
    assertEquals(
        "leaseTtl must be <= 9000000000s (etcd's largest TTL), but was 9000000001s",
        error(valid().leaseTtl(Duration.ofSeconds(9_000_000_001L))));
    assertEquals(
        "pollInterval must be <= 106751 days, but was " + Long.MAX_VALUE + "s",
        error(valid().pollInterval(Duration.ofSeconds(Long.MAX_VALUE))));
    assertEquals(
        "resignHoldoff must be <= 106751 days, but was 9223372800s",
        error(valid().resignHoldoff(Duration.ofDays(106_752))));
    // etcd's largest TTL itself is accepted.
    assertEquals(
        Duration.ofSeconds(9_000_000_000L),
        valid().leaseTtl(Duration.ofSeconds(9_000_000_000L)).build().leaseTtl());
  }

  @Test
  void placementDefaultsToPriorityZeroAndNoPreemption() {
    ElectorConfig c = valid().build();
    assertEquals(0, c.priority());
    assertTrue(c.preemptAfter().isEmpty());
    ElectorConfig set = valid().priority(-4).preemptAfter(Duration.ofSeconds(30)).build();
    assertEquals(-4, set.priority());
    assertEquals(Duration.ofSeconds(30), set.preemptAfter().orElseThrow());
    assertEquals(set.toString(), ElectorConfig.builder().config(set).build().toString());
  }

  @Test
  void placementIsRejectedWithoutTheQueueItNeeds() {
    assertEquals(
        "priority needs the queue, which is kept on standby leases: set standbyLease(true), but priority"
            + " was 3 with standbyLease false",
        error(valid().priority(3).standbyLease(false)));
    assertEquals(
        "preemptAfter needs the queue, which is kept on standby leases: set standbyLease(true), but"
            + " preemptAfter was 1s with standbyLease false",
        error(valid().preemptAfter(Duration.ofSeconds(1)).standbyLease(false)));
    assertEquals("preemptAfter must be >= 0, but was -1000ms", error(valid().preemptAfter(Duration.ofMillis(-1000))));
  }
}
