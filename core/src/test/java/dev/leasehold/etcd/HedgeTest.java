package dev.leasehold.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Hedge: a second copy only when the first is slow, the first success wins, failures counted per copy. */
class HedgeTest {
  private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long NEVER = TimeUnit.HOURS.toNanos(1);

  /** Copies hands out the futures of the copies sent, in order; the test completes them. */
  private static final class Copies implements Supplier<CompletableFuture<String>> {
    final List<CompletableFuture<String>> sent = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<String> get() {
      CompletableFuture<String> f = new CompletableFuture<>();
      sent.add(f);
      return f;
    }

    CompletableFuture<String> awaitCopy(int n) throws InterruptedException {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (sent.size() < n && System.nanoTime() < until) {
        Thread.sleep(1);
      }
      assertTrue(sent.size() >= n, "copy " + n + " was sent");
      return sent.get(n - 1);
    }
  }

  @Test
  void anAnswerBeforeTheDelaySendsNoSecondCopy() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT);
    copies.sent.get(0).complete("a");
    assertEquals("a", r.get(5, TimeUnit.SECONDS));
    Thread.sleep(100); // five hedge delays: the delayed task ran and found the answer
    assertEquals(1, copies.sent.size(), "no copy after an answer");
  }

  @Test
  void aSlowFirstCopyIsHedgedAndTheFirstSuccessWins() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT);
    CompletableFuture<String> second = copies.awaitCopy(2);
    assertFalse(r.isDone(), "nothing answered yet");
    second.complete("b");
    assertEquals("b", r.get(5, TimeUnit.SECONDS));
    copies.sent.get(0).complete("a");
    assertEquals("b", r.get(), "a late first copy changes nothing");
  }

  @Test
  void aFailureBeforeTheDelayFailsAtOnce() {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, NEVER);
    IllegalStateException boom = new IllegalStateException("no leader");
    copies.sent.get(0).completeExceptionally(boom);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(boom, e.getCause());
  }

  @Test
  void afterTheHedgeOneFailureWaitsForTheOtherCopy() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT);
    CompletableFuture<String> second = copies.awaitCopy(2);
    copies.sent.get(0).completeExceptionally(new IllegalStateException("timed out"));
    assertFalse(r.isDone(), "the second copy may still answer");
    second.complete("b");
    assertEquals("b", r.get(5, TimeUnit.SECONDS));
  }

  @Test
  void bothCopiesFailingFailsWithTheLastFailure() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT);
    CompletableFuture<String> second = copies.awaitCopy(2);
    second.completeExceptionally(new IllegalStateException("first to fail"));
    assertFalse(r.isDone());
    IllegalStateException last = new IllegalStateException("last to fail");
    copies.sent.get(0).completeExceptionally(last);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(last, e.getCause());
  }

  @Test
  void aCopyThatThrowsCountsAsFailed() {
    CompletableFuture<String> r = Hedge.first(() -> {
      throw new IllegalStateException("client closed");
    }, NEVER);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertEquals("client closed", e.getCause().getMessage());
  }
}
