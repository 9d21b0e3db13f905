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
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Hedge: a second copy only when the first is slow or refused by its member, the first success
 * wins, failures counted per copy.
 */
class HedgeTest {
  private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long NEVER = TimeUnit.HOURS.toNanos(1);
  private static final Predicate<Throwable> NOT_AT_ONCE = e -> false;
  private static final Predicate<Throwable> MEMBER_REFUSED = e -> e.getMessage().contains("no leader");

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
    CompletableFuture<String> r = Hedge.first(copies, SHORT, NOT_AT_ONCE);
    copies.sent.get(0).complete("a");
    assertEquals("a", r.get(5, TimeUnit.SECONDS));
    Thread.sleep(100); // five hedge delays: the delayed task ran and found the answer
    assertEquals(1, copies.sent.size(), "no copy after an answer");
  }

  @Test
  void aSlowFirstCopyIsHedgedAndTheFirstSuccessWins() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT, NOT_AT_ONCE);
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
    CompletableFuture<String> r = Hedge.first(copies, NEVER, NOT_AT_ONCE);
    IllegalStateException boom = new IllegalStateException("no leader");
    copies.sent.get(0).completeExceptionally(boom);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(boom, e.getCause());
  }

  @Test
  void afterTheHedgeOneFailureWaitsForTheOtherCopy() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT, NOT_AT_ONCE);
    CompletableFuture<String> second = copies.awaitCopy(2);
    copies.sent.get(0).completeExceptionally(new IllegalStateException("timed out"));
    assertFalse(r.isDone(), "the second copy may still answer");
    second.complete("b");
    assertEquals("b", r.get(5, TimeUnit.SECONDS));
  }

  @Test
  void bothCopiesFailingFailsWithTheLastFailure() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT, NOT_AT_ONCE);
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
    }, NEVER, NOT_AT_ONCE);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertEquals("client closed", e.getCause().getMessage());
  }

  @Test
  void aFirstCopyRefusedByItsMemberSendsTheSecondAtOnce() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, NEVER, MEMBER_REFUSED);
    copies.sent.get(0).completeExceptionally(new IllegalStateException("etcdserver: no leader"));
    assertEquals(2, copies.sent.size(), "the second copy went out at once, not after the delay");
    assertFalse(r.isDone(), "the second copy may still answer");
    copies.sent.get(1).complete("b");
    assertEquals("b", r.get(5, TimeUnit.SECONDS));
  }

  @Test
  void aRefusalAfterTheHedgeSendsNoThirdCopy() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, SHORT, MEMBER_REFUSED);
    CompletableFuture<String> second = copies.awaitCopy(2);
    IllegalStateException refused = new IllegalStateException("etcdserver: no leader");
    copies.sent.get(0).completeExceptionally(refused);
    assertEquals(2, copies.sent.size(), "at most two copies per call");
    assertFalse(r.isDone(), "the second copy may still answer");
    IllegalStateException last = new IllegalStateException("etcdserver: no leader, again");
    second.completeExceptionally(last);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(last, e.getCause());
  }

  @Test
  void bothCopiesRefusedFailsWithTheSecondsRefusal() throws Exception {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, NEVER, MEMBER_REFUSED);
    copies.sent.get(0).completeExceptionally(new IllegalStateException("etcdserver: no leader"));
    IllegalStateException last = new IllegalStateException("etcdserver: no leader (second member)");
    copies.sent.get(1).completeExceptionally(last);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(last, e.getCause());
    Thread.sleep(50);
    assertEquals(2, copies.sent.size(), "a refused second copy is not sent again");
  }

  @Test
  void aFailureTheMemberMayShareStillFailsAtOnce() {
    Copies copies = new Copies();
    CompletableFuture<String> r = Hedge.first(copies, NEVER, MEMBER_REFUSED);
    IllegalStateException notFound = new IllegalStateException("requested lease not found");
    copies.sent.get(0).completeExceptionally(notFound);
    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(5, TimeUnit.SECONDS));
    assertSame(notFound, e.getCause());
    assertEquals(1, copies.sent.size());
  }
}
