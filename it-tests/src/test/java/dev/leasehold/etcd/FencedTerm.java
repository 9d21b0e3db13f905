package dev.leasehold.etcd;

import dev.leasehold.Guarantee;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * FencedTerm is a term of an election key with a given fencing token and nothing else: what
 * {@link EtcdFencing} reads from a {@link Leadership}, for tests that guard writes without an
 * elector. Immutable, so thread-safe.
 */
record FencedTerm(String electionKey, long fencingToken) implements Leadership {
  @Override
  public String candidateId() {
    return "test";
  }

  @Override
  public long leaseId() {
    return 0;
  }

  @Override
  public Duration grantedTtl() {
    return Duration.ofSeconds(5);
  }

  @Override
  public Instant electedAt() {
    return Instant.EPOCH;
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.DISTRIBUTED;
  }

  @Override
  public Duration timeLeft() {
    return Duration.ZERO;
  }

  @Override
  public boolean isValid() {
    return true;
  }

  @Override
  public void heartbeat() {}

  @Override
  public void resign() {}

  @Override
  public CompletionStage<LeadershipEvent> whenLost() {
    return new CompletableFuture<>();
  }
}
