package dev.leasehold.jdbc;

/**
 * WokenLock is the named lock {@code L(h)} a FOLLOWER's wake-up left it holding (PROTOCOL.md §10,
 * "Wake-up"): kept while the row names {@code h}, so that waiting again does not return at once,
 * and let go once the row names another holder (or none), or when this process is elected. It
 * lives on one session: when that session ends, the store dropped the lock with it.
 *
 * <p>Not thread-safe: owned by one {@link SqlMachine}.
 */
final class WokenLock {
  private final SqlEffects fx;
  private HolderToken held;

  WokenLock(SqlEffects fx) {
    this.fx = fx;
  }

  /** keep holds on to {@code h}'s lock, which the wake-up acquired. */
  void keep(HolderToken h) {
    held = h;
  }

  /** isOn tells whether {@code row} names the holder whose lock is held: then re-read, never wait on it. */
  boolean isOn(LeaseRow row) {
    return row.names(held);
  }

  /** letGoUnlessNamedBy sends RELEASE_LOCK unless {@code row} (null: none) still names the holder. */
  void letGoUnlessNamedBy(LeaseRow row) {
    if (held != null && (row == null || !row.names(held))) {
      letGo();
    }
  }

  /** letGo sends RELEASE_LOCK for the held lock, if any. */
  void letGo() {
    if (held != null) {
      HolderToken h = held;
      fx.call(op -> new SqlCommand.Unlock(op, h));
      held = null;
    }
  }

  /** sessionEnded forgets the lock: the store ended the session it lived on. */
  void sessionEnded() {
    held = null;
  }
}
