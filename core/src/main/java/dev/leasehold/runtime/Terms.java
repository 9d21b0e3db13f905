package dev.leasehold.runtime;

import dev.leasehold.Leadership;

/**
 * Terms gives a backend's guard what its machine attached to a term ({@link
 * Machine#termDetail()}), from the {@link Leadership} the user holds.
 *
 * <p>Stateless and thread-safe.
 */
public final class Terms {
  private Terms() {}

  /** detail is the term's detail, or null when the leadership is not the runtime's or has none. */
  public static Object detail(Leadership leadership) {
    return leadership instanceof TermHandle t ? t.detail() : null;
  }
}
