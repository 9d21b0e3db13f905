package dev.leasehold.runtime;

import dev.leasehold.Guarantee;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * TermHandle is the {@link Leadership} of one term.
 *
 * <p>Thread-safe: the event loop writes the deadline and the ended flag (volatile), any
 * thread reads them; {@link #heartbeat()} writes its time (volatile) from any thread;
 * {@code whenLost} is completed on the dispatcher thread.
 */
final class TermHandle implements Leadership {
  private final String electionKey;
  private final String candidateId;
  private final long fencingToken;
  private final long leaseId;
  private final Instant electedAt;
  private final LongSupplier clock;
  private final Term.Detail detail;
  private final Guarantee guarantee;
  private final Duration grantedTtl;
  private final CompletableFuture<LeadershipEvent> lost = new CompletableFuture<>();
  private volatile long deadline;
  private volatile boolean ended;
  private volatile long lastHeartbeat;
  private final Consumer<TermHandle> resigner;

  /**
   * TermHandle is the Leadership of {@code term}, which began at {@code electedAt}, on a lease
   * granted {@code grantedTtl}.
   */
  TermHandle(
      String electionKey,
      String candidateId,
      Term term,
      Duration grantedTtl,
      Instant electedAt,
      LongSupplier clock,
      Guarantee guarantee,
      Consumer<TermHandle> resigner) {
    this.electionKey = electionKey;
    this.candidateId = candidateId;
    this.fencingToken = term.token();
    this.leaseId = term.leaseId();
    this.electedAt = electedAt;
    this.clock = clock;
    this.deadline = term.deadline();
    this.detail = term.detail();
    this.guarantee = guarantee;
    this.grantedTtl = grantedTtl;
    this.resigner = resigner;
    this.lastHeartbeat = clock.getAsLong();
  }

  /** lastHeartbeat is the monotonic time of the last {@link #heartbeat()}, or of the election. */
  long lastHeartbeat() {
    return lastHeartbeat;
  }

  /** detail is the store's {@link Term.Detail} of the term, or null. */
  Term.Detail detail() {
    return detail;
  }

  void extend(long newDeadline) {
    deadline = newDeadline;
  }

  void end() {
    ended = true;
  }

  void completeLost(LeadershipEvent event) {
    lost.complete(event);
  }

  long deadline() {
    return deadline;
  }

  boolean ended() {
    return ended;
  }

  @Override
  public String electionKey() {
    return electionKey;
  }

  @Override
  public String candidateId() {
    return candidateId;
  }

  @Override
  public long fencingToken() {
    return fencingToken;
  }

  @Override
  public long leaseId() {
    return leaseId;
  }

  @Override
  public Instant electedAt() {
    return electedAt;
  }

  @Override
  public boolean isValid() {
    // Compare as a difference: nanoTime values may be negative and wrap.
    return !ended && clock.getAsLong() - deadline < 0;
  }

  @Override
  public Duration grantedTtl() {
    return grantedTtl;
  }

  @Override
  public Guarantee guarantee() {
    return guarantee;
  }

  @Override
  public Duration timeLeft() {
    if (ended) {
      return Duration.ZERO;
    }
    long left = deadline - clock.getAsLong();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  @Override
  public void heartbeat() {
    if (!ended) {
      lastHeartbeat = clock.getAsLong();
    }
  }

  @Override
  public void resign() {
    if (!ended) {
      resigner.accept(this);
    }
  }

  @Override
  public CompletionStage<LeadershipEvent> whenLost() {
    return lost.minimalCompletionStage();
  }

  @Override
  public String toString() {
    return "Leadership{key=" + electionKey + ", candidateId=" + candidateId + ", token="
        + fencingToken + ", lease=" + Long.toHexString(leaseId) + ", guarantee=" + guarantee + ", valid=" + isValid() + "}";
  }
}
