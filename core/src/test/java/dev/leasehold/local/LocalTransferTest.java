package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeaderInfo;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * transferTo on the local backend, which runs the etcd machine on the in-process store: the term
 * goes to the named candidate with a higher token, the leader's listeners see TRANSFERRED, the
 * stage completes off the event loop, and a name not queued is refused with the term kept.
 */
class LocalTransferTest {
  private final LocalStore store = new LocalStore(System::nanoTime, null);
  private final Electors electors = new Electors(store);

  @AfterEach
  void close() {
    electors.close();
    store.close();
  }

  @Test
  void theTermGoesToTheNamedCandidateAndAStrangerIsRefused() throws Exception {
    LeaderElector a = electors.add("a", b -> b);
    a.start();
    Electors.waiting(Duration.ofSeconds(5)).until(a::isLeader);
    LeaderElector b = electors.add("b", x -> x);
    LeaderElector c = electors.add("c", x -> x);
    b.start();
    c.start();
    Electors.waiting(Duration.ofSeconds(5))
        .until(() -> a.participants().toCompletableFuture().get(), q -> q.size() == 2);
    long token = a.leadership().orElseThrow().fencingToken();

    ExecutionException refused = assertThrows(ExecutionException.class,
        () -> a.transferTo("z").toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertEquals("transfer refused: z is not a live participant of the queue (it shows [b, c]); the term is kept",
        refused.getCause().getMessage());
    assertTrue(a.isLeader());

    String[] completedOn = new String[1];
    LeaderInfo next = a.transferTo("c").thenApply(l -> {
      completedOn[0] = Thread.currentThread().getName();
      return l;
    }).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals("c", next.candidateId());
    assertTrue(next.fencingToken() > token);
    assertFalse(completedOn[0].contains("loop"), "completed on " + completedOn[0]);
    LeaderElector leader = electors.awaitLeader(token, Duration.ofSeconds(5));
    assertEquals(c, leader);
    assertEquals(next.fencingToken(), c.leadership().orElseThrow().fencingToken());
    assertTrue(electors.events(a).stream().map(LeadershipEvent::cause).anyMatch(Cause.TRANSFERRED::equals));
  }
}
