package dev.leasehold.etcd;

import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * QueueAccess remembers whether etcd refused this elector the queue's prefix (PROTOCOL.md
 * §4.5) for lack of a permission. A role on the election key alone is enough to elect: the
 * queue is for liveness only (one campaign per term change, handover on resign), so without
 * it the elector runs as before the queue existed, every follower campaigning when the key goes
 * and resign() revoking the lease, after one WARN that names the prefix to grant.
 *
 * <p>Thread-safe: jetcd's threads report refusals, the event loop asks.
 */
final class QueueAccess {
  private static final Logger log = LoggerFactory.getLogger(QueueAccess.class);

  private final String prefix;
  private final AtomicBoolean refused = new AtomicBoolean();

  QueueAccess(String prefix) {
    this.prefix = prefix;
  }

  /** refused tells whether etcd refused the prefix once already. */
  boolean refused() {
    return refused.get();
  }

  /**
   * noteRefusal records {@code failure} of a call on the prefix alone if it is a refused
   * permission, and tells whether it was; the first one is logged. A refused call that also
   * reads the key says nothing on its own: the key may be what was refused (see {@link #refuse}).
   */
  boolean noteRefusal(Throwable failure) {
    if (!isPermissionDenied(failure)) {
      return false;
    }
    refuse();
    return true;
  }

  /**
   * refuse records that etcd refused the prefix: a call on the key and the prefix was refused a
   * permission and the same read of the key alone was allowed. The first one is logged.
   */
  void refuse() {
    if (refused.compareAndSet(false, true)) {
      log.warn("etcd refused the queue's prefix {} (permission denied): electing without the queue, so every "
          + "follower campaigns when the key goes and resign() revokes the lease instead of handing the key "
          + "over; grant readwrite on the prefix {} as well as on the key to have it", prefix, prefix);
    }
  }

  /** isPermissionDenied tells whether etcd refused a call for lack of a permission. */
  static boolean isPermissionDenied(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (Status.fromThrowable(t).getCode() == Status.Code.PERMISSION_DENIED) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && m.contains("permission denied")) {
        return true;
      }
    }
    return false;
  }
}
