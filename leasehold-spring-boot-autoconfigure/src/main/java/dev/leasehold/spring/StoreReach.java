package dev.leasehold.spring;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import java.time.Instant;
import java.util.Optional;

/**
 * StoreReach follows the elector's STORE_UNAVAILABLE and STORE_RECOVERED events, so health can
 * tell a follower from an instance that cannot reach its store (and so fails closed: it leads
 * nothing while the outage lasts).
 *
 * <p>Thread-safe: the state is one immutable snapshot behind a volatile field, written only on
 * the elector's dispatcher thread.
 */
public final class StoreReach implements LeadershipListener {
  /**
   * Outage is an ongoing store outage: why, and since when (the first STORE_UNAVAILABLE event).
   *
   * @param reason the store's failure, as the elector reported it
   * @param since the wall-clock time the outage was reported
   */
  public record Outage(String reason, Instant since) {}

  private volatile Outage outage;
  private volatile LeadershipEvent last;

  /** StoreReach starts with the store assumed reachable. */
  public StoreReach() {}

  @Override
  public void onLeadershipChanged(LeadershipEvent event) {
    last = event;
    switch (event.cause()) {
      case STORE_UNAVAILABLE -> outage = new Outage(event.reason().orElse("unavailable"), event.time());
      // Winning or seeing a leader needs the store's answer, so those end an outage too.
      // A switch of backend starts afresh on the next one (health reports the fallback itself).
      case STORE_RECOVERED, ELECTED, LEADER_CHANGED, FALLBACK, FALLBACK_ENDED -> outage = null;
      default -> { }
    }
  }

  /** outage is the ongoing outage, if the store is unreachable now. */
  public Optional<Outage> outage() {
    return Optional.ofNullable(outage);
  }

  /** lastEvent is the last event the elector reported, if any. */
  public Optional<LeadershipEvent> lastEvent() {
    return Optional.ofNullable(last);
  }
}
