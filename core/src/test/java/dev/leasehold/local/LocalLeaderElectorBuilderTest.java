package dev.leasehold.local;

import dev.leasehold.LeaderElector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leasehold.ElectorConfig;
import dev.leasehold.ElectorState;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalLeaderElectorBuilderTest {
  private final LocalStore store = LocalStore.create();

  @AfterEach
  void close() {
    store.close();
  }

  private LocalLeaderElector.Builder valid() {
    return LocalLeaderElector.builder().store(store).electionKey("/k");
  }

  private static String error(LocalLeaderElector.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void aMissingStoreIsRejectedNamingTheField() {
    assertEquals(
        "store must be set (LocalStore.create()), but was null",
        error(LocalLeaderElector.builder().electionKey("/k")));
  }

  @Test
  void aBlankKeyIsRejectedWithTheSharedConfigMessageBeforeTheStoreIsChecked() {
    assertEquals(
        "electionKey must be a non-blank string, but was \" \"",
        error(LocalLeaderElector.builder().store(store).electionKey(" ")));
    assertEquals(
        "electionKey must be a non-blank string, but was null",
        error(LocalLeaderElector.builder()));
  }

  @Test
  void aBadTtlIsRejectedWithItsValue() {
    assertEquals(
        "leaseTtl must be >= 1s, but was 200ms",
        error(valid().leaseTtl(Duration.ofMillis(200))));
    assertEquals(
        "leaseTtl must be a whole number of seconds (the local store grants seconds, as etcd does),"
            + " but was 1.5s",
        error(valid().leaseTtl(Duration.ofMillis(1500))));
    assertEquals(
        "leaseTtl must be set, but was null",
        error(valid().leaseTtl(null)));
    assertEquals(
        "rpcTimeout must be < leaseTtl/3 (1s), but was 1s",
        error(valid().leaseTtl(Duration.ofSeconds(3)).rpcTimeout(Duration.ofSeconds(1))));
  }

  @Test
  void aClosedStoreIsRejected() {
    LocalStore closed = LocalStore.create();
    closed.close();
    assertEquals(
        "store must be open, but was closed",
        error(LocalLeaderElector.builder().store(closed).electionKey("/k")));
  }

  @Test
  void theSharedConfigCanBeGivenAsOneObject() {
    ElectorConfig config =
        ElectorConfig.builder()
            .electionKey("/k")
            .candidateId("me")
            .leaseTtl(Duration.ofSeconds(1))
            .build();
    LeaderElector e = LocalLeaderElector.builder().store(store).config(config).build();
    assertEquals(Duration.ofSeconds(1), e.config().leaseTtl());
    assertEquals("me", e.config().candidateId());
    assertEquals(ElectorState.FOLLOWER, e.state(), "built, not started");
    e.close();
    assertEquals(ElectorState.STOPPED, e.state());
    assertEquals(0, store.leaseCount());
  }
}
