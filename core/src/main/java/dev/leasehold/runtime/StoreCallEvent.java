package dev.leasehold.runtime;

/**
 * StoreCallEvent records one store call as a {@link FlightEvents.StoreCall} JFR event: begun
 * when the call is sent, committed when its answer (or failure) arrives on the store's thread.
 * When the event is not being recorded it does nothing.
 *
 * <p>Not thread-safe: filled on the loop, then handed to the store's thread with the call.
 */
final class StoreCallEvent {
  private final FlightEvents.StoreCall event;

  private StoreCallEvent(FlightEvents.StoreCall event) {
    this.event = event;
  }

  /** sent begins the event of call {@code call} of elector {@code elector}, sent now. */
  static StoreCallEvent sent(String elector, String call) {
    FlightEvents.StoreCall e = new FlightEvents.StoreCall();
    if (e.isEnabled()) {
      e.elector = elector;
      e.call = call;
      e.sentNanoTime = System.nanoTime();
      e.begin();
    }
    return new StoreCallEvent(e);
  }

  /** answered ends the event: {@code failure} is why the call failed, or null when answered. */
  void answered(String failure) {
    if (event.shouldCommit()) {
      event.answeredNanoTime = System.nanoTime();
      event.failure = failure;
      event.commit();
    }
  }
}
