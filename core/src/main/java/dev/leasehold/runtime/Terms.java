package dev.leasehold.runtime;

import dev.leasehold.Leadership;
import java.util.Optional;

/**
 * Terms gives a backend's guard what its machine attached to a term (the {@link Term.Detail}
 * of the {@link Term} it handed over at election), from the {@link Leadership} the user holds.
 *
 * <p>Stateless and thread-safe.
 */
public final class Terms {
  private Terms() {}

  /**
   * detail is the term's detail if it is a {@code type}; empty when the leadership is not the
   * runtime's, or its store attached none, or another store's.
   *
   * @param <D> the store's detail type
   * @param leadership the term, from any elector
   * @param type the detail class the caller's store attaches
   * @return the detail, or empty
   */
  public static <D extends Term.Detail> Optional<D> detail(Leadership leadership, Class<D> type) {
    return leadership instanceof TermHandle t && type.isInstance(t.detail())
        ? Optional.of(type.cast(t.detail()))
        : Optional.empty();
  }
}
