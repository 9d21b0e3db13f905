package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import java.util.Objects;
import java.util.Optional;
import org.springframework.context.ApplicationEvent;

/**
 * LeadershipChangedEvent is a Spring application event wrapping each {@link LeadershipEvent}
 * of the context's elector (its source), published in the elector's order on its dispatcher
 * thread; {@code @EventListener} methods receive it there, so a slow listener delays later
 * events (hand long work to an executor).
 *
 * <p>Like every event it describes the past: by the time a listener runs, a term it reports
 * may be over. Check {@link Leadership#isValid()} before leader-only work. Immutable and
 * thread-safe.
 */
public final class LeadershipChangedEvent extends ApplicationEvent {
  private static final long serialVersionUID = 1L;

  private final transient LeadershipEvent event;

  /**
   * LeadershipChangedEvent wraps {@code event}, reported by {@code elector}.
   *
   * @param elector the elector that reported the event (the event's source)
   * @param event the elector's event
   */
  public LeadershipChangedEvent(LeaderElector elector, LeadershipEvent event) {
    super(elector);
    this.event = Objects.requireNonNull(event, "event");
  }

  /**
   * event is the elector's event.
   *
   * @return the event
   */
  public LeadershipEvent event() {
    return event;
  }

  /**
   * elector is the elector that reported the event.
   *
   * @return the elector
   */
  public LeaderElector elector() {
    return (LeaderElector) getSource();
  }

  /**
   * isElected is true when the event makes this instance leader (see {@link
   * LeadershipEvent#isElected()}).
   *
   * @return whether this instance was elected
   */
  public boolean isElected() {
    return event.isElected();
  }

  /**
   * isLost is true when the event ends this instance's term (see {@link LeadershipEvent#isLost()}).
   *
   * @return whether this instance's term ended
   */
  public boolean isLost() {
    return event.isLost();
  }

  /**
   * leadership is the term just won, on an elected event.
   *
   * @return the term, or empty when the event elects no one here
   */
  public Optional<Leadership> leadership() {
    return event.leadership();
  }

  @Override
  public String toString() {
    return "LeadershipChangedEvent[" + event + "]";
  }
}
