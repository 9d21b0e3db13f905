package dev.leasehold.etcd.protocol;

import dev.leasehold.ElectorState;
import dev.leasehold.runtime.Roles;

/**
 * KeyWatch is the elector's one open watch: which watch it is, whether it covers the queue,
 * and how many times in a row it failed. The MASTER's (with a standby lease) covers the queue
 * too, which it needs to pick its successor; a follower's covers the key alone, so the queue's
 * changes do not fan out to every candidate (PROTOCOL.md §4.5). A failed watch is opened again
 * after a backoff (the REWATCH timer), and an event from it makes it healthy again.
 *
 * <p>Not thread-safe: owned by one {@link ElectionMachine}.
 */
final class KeyWatch {
  private final Effects fx;
  private final KeyView key;
  private final Roles roles;
  private final boolean standbyLease;
  private long id;
  private boolean hasQueue;
  private long failures;

  KeyWatch(ProtocolConfig config, Effects fx, KeyView key, Roles roles) {
    this.fx = fx;
    this.key = key;
    this.roles = roles;
    this.standbyLease = config.standbyLease();
  }

  /** ensure opens the watch from the revision after the latest one known, if none is open. */
  void ensure() {
    if (id == 0 && key.knownRevision() > 0) {
      id = fx.id();
      hasQueue = wantsQueue();
      fx.add(new EtcdCommand.Watch(id, key.knownRevision() + 1, hasQueue));
    }
  }

  /** rewatch replaces the open watch by one that covers the queue if the role wants it now. */
  void rewatch() {
    if (id != 0 && hasQueue == wantsQueue()) {
      return;
    }
    cancel();
    ensure();
  }

  /** from tells whether an event came from the open watch, which is then healthy again. */
  boolean from(long watchId) {
    if (watchId != id) {
      return false;
    }
    failures = 0;
    return true;
  }

  /** failed drops the open watch that failed and opens it again after a backoff. */
  void failed(EtcdInput.WatchFailed f, long now) {
    if (f.watchId() != id) {
      return;
    }
    id = 0;
    failures++;
    fx.setTimer(TimerKind.REWATCH, now + fx.backoff(failures));
  }

  /** cancel closes the open watch, if any. */
  void cancel() {
    if (id != 0) {
      fx.add(new EtcdCommand.CancelWatch(id));
      id = 0;
    }
  }

  private boolean wantsQueue() {
    return roles.role() == ElectorState.MASTER && standbyLease;
  }
}
