package dev.leasehold.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * FlightEventsTest records a local elector's JFR events in process: an election, a resign and
 * what each carries, as a user with {@code jcmd JFR.start} or Mission Control would see them.
 */
class FlightEventsTest {
  private static final List<String> NAMES =
      List.of("dev.leasehold.LeadershipChange", "dev.leasehold.Resign", "dev.leasehold.StoreCall",
          "dev.leasehold.LoopStep", "dev.leasehold.ListenerCall", "dev.leasehold.Renewal");

  @Test
  void anElectionAndAResignAreRecordedWithTheirTokenCauseAndNanoTimes() throws Exception {
    List<RecordedEvent> seen = new CopyOnWriteArrayList<>();
    try (RecordingStream rs = new RecordingStream();
        LocalStore store = LocalStore.create();
        Electors electors = new Electors(store)) {
      for (String n : NAMES) {
        rs.enable(n).withoutThreshold();
        rs.onEvent(n, seen::add);
      }
      rs.startAsync();
      long before = System.nanoTime();
      LeaderElector leader = electors.add("c0", b -> b);
      leader.start();
      Leadership term = leader.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
      leader.resign();
      Electors.waiting(Duration.ofSeconds(10)).until(() -> !leader.isLeader());
      long after = System.nanoTime();
      Electors.waiting(Duration.ofSeconds(10))
          .until(() -> has(seen, "dev.leasehold.LeadershipChange", "cause", "RESIGNED")
              && has(seen, "dev.leasehold.ListenerCall", "cause", "RESIGNED"));

      RecordedEvent elected = first(seen, "dev.leasehold.LeadershipChange", "cause", "ELECTED");
      assertEquals("MASTER", elected.getString("to"));
      assertEquals("c0", elected.getString("leader"));
      assertEquals(term.fencingToken(), elected.getLong("token"));
      assertTrue(elected.getString("elector").startsWith("c0@"), elected.getString("elector"));
      long at = elected.getLong("nanoTime");
      assertTrue(at >= before && at <= after, "nanoTime on this host's monotonic clock");

      assertTrue(has(seen, "dev.leasehold.Resign", "elector", elected.getString("elector")));
      assertTrue(has(seen, "dev.leasehold.LoopStep", "input", "Resign"));
      assertTrue(has(seen, "dev.leasehold.LoopStep", "input", "CampaignWon"));
      RecordedEvent campaign = first(seen, "dev.leasehold.StoreCall", "call", "Campaign");
      assertTrue(campaign.getLong("answeredNanoTime") >= campaign.getLong("sentNanoTime"));
      assertEquals(null, campaign.getString("failure"));
    }
  }

  private static boolean has(List<RecordedEvent> seen, String type, String field, String value) {
    return seen.stream().anyMatch(e -> matches(e, type, field, value));
  }

  private static RecordedEvent first(List<RecordedEvent> seen, String type, String field, String value) {
    return seen.stream().filter(e -> matches(e, type, field, value)).findFirst().orElseThrow(
        () -> new AssertionError("no " + type + " with " + field + "=" + value + " in " + seen.size() + " events"));
  }

  private static boolean matches(RecordedEvent e, String type, String field, String value) {
    return e.getEventType().getName().equals(type) && value.equals(e.getString(field));
  }
}
