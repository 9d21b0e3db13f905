package dev.leasehold.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.LeadershipListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** EventLog records one listener's events and checks they are ordered and paired. */
final class EventLog implements LeadershipListener {
  private final String name;
  private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();

  EventLog(String name) {
    this.name = name;
  }

  @Override
  public void onLeadershipChanged(LeadershipEvent event) {
    threads.add(Thread.currentThread().getName());
    events.add(event);
  }

  List<LeadershipEvent> events() {
    return new ArrayList<>(events);
  }

  boolean has(Cause cause) {
    return events.stream().anyMatch(e -> e.cause() == cause);
  }

  long count(Cause cause) {
    return events.stream().filter(e -> e.cause() == cause).count();
  }

  Optional<LeadershipEvent> last(Cause cause) {
    LeadershipEvent found = null;
    for (LeadershipEvent e : events) {
      if (e.cause() == cause) {
        found = e;
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * awaitLast waits up to {@code atMost} for an event of {@code cause} and returns the last one:
   * listeners hear of a change on the dispatcher, after {@code isLeader()} already shows it.
   */
  LeadershipEvent awaitLast(Cause cause, java.time.Duration atMost) {
    return org.awaitility.Awaitility.await().atMost(atMost).until(() -> last(cause), Optional::isPresent).get();
  }

  Optional<LeadershipEvent> firstLossAfter(long nanoTime) {
    return events.stream().filter(e -> e.isLost() && e.nanoTime() >= nanoTime).findFirst();
  }

  /**
   * assertOrderedAndPaired checks: the first event is SUBSCRIBED; times never go back; every
   * ELECTED is followed by exactly one loss (or CLOSED) before the next ELECTED; nothing ran
   * on the elector's event loop.
   */
  void assertOrderedAndPaired() {
    List<LeadershipEvent> es = events();
    assertFalse(es.isEmpty(), name + ": no events");
    assertEquals(Cause.SUBSCRIBED, es.get(0).cause(), name + ": first event");
    boolean leading = es.get(0).isElected();
    long t = es.get(0).nanoTime();
    for (int i = 1; i < es.size(); i++) {
      LeadershipEvent e = es.get(i);
      assertTrue(e.nanoTime() >= t, name + ": event " + i + " goes back in time: " + es);
      t = e.nanoTime();
      if (e.isElected()) {
        if (leading) {
          fail(name + ": ELECTED twice without a loss in between: " + es);
        }
        assertTrue(e.leadership().isPresent(), name + ": ELECTED without a Leadership handle");
        leading = true;
      } else if (e.isLost()) {
        if (!leading) {
          fail(name + ": loss without a term: " + es);
        }
        assertTrue(e.cause().isLoss(), name + ": " + e);
        leading = false;
      }
    }
    for (String thread : threads) {
      assertFalse(thread.startsWith("leasehold-loop-"), name + ": listener ran on the event loop");
    }
  }
}
