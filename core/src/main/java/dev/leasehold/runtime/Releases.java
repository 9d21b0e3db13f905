package dev.leasehold.runtime;

import dev.leasehold.Durations;
import dev.leasehold.ElectorConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases gives leases back to the store for the runtime: each release is retried with
 * capped exponential backoff until the store confirms (or says the lease is gone), or until
 * close gives up waiting. Time alone does not end it: a store that was down kept the lease
 * (etcd restores a stopped member's leases with a fresh TTL), so a revoke still matters once
 * it is back, and without it the key would stay for another TTL. Once twice the granted TTL has
 * passed, one WARN says so (not while close waits: close reports the outcome). Each lease gets
 * at most one line saying it was not released: when close stops waiting for it, "could not
 * release lease ...; lease left to expire in <= TTL", and nothing after that claims otherwise.
 * A reply that comes after its attempt timed out still ends the
 * release: every revoke etcd receives is a raft proposal, even for a lease already gone, so a
 * retry it makes unnecessary is not sent.
 *
 * <p>Not thread-safe: confined to the runtime's event loop.
 */
final class Releases {
  private final Logger log;
  private final StorePort store;
  private final Scheduler scheduler;
  private final String name;
  private final long requestedTtlNanos;
  private final long rpcTimeoutNanos;
  private final long backoffInitialNanos;
  private final long backoffMaxNanos;
  private final Set<Release> pending = new HashSet<>();
  private Runnable whenDone;
  private Scheduler.Cancellable doneBound;

  Releases(ElectorConfig config, StorePort store, Scheduler scheduler, String name) {
    this(config, store, scheduler, name, LoggerFactory.getLogger(Releases.class));
  }

  Releases(ElectorConfig config, StorePort store, Scheduler scheduler, String name, Logger log) {
    this.log = log;
    this.store = store;
    this.scheduler = scheduler;
    this.name = name;
    this.requestedTtlNanos = config.leaseTtl().toNanos();
    this.rpcTimeoutNanos = config.rpcTimeout().toNanos();
    this.backoffInitialNanos = config.retryBackoffInitial().toNanos();
    this.backoffMaxNanos = config.retryBackoffMax().toNanos();
  }

  /** release starts giving {@code leaseId} back; {@code ttlSeconds} is its granted TTL (0: unknown). */
  void release(long leaseId, long ttlSeconds) {
    long ttl = ttlSeconds > 0 ? ttlSeconds * 1_000_000_000L : requestedTtlNanos;
    Release r = new Release(leaseId, ttl, scheduler.nanoTime() + 2 * ttl);
    pending.add(r);
    r.attempt(0);
  }

  /**
   * whenDone runs {@code next} once no release is pending, or after {@code boundNanos} with a
   * warning for each lease still unreleased (it expires within its TTL).
   */
  void whenDone(long boundNanos, Runnable next) {
    if (pending.isEmpty()) {
      next.run();
      return;
    }
    whenDone = next;
    doneBound = scheduler.schedule(this::giveUpAll, boundNanos);
  }

  private void giveUpAll() {
    for (Release r : Set.copyOf(pending)) {
      r.giveUp(r.lastFailure == null ? "no answer before close stopped waiting" : r.lastFailure);
    }
  }

  private void finished(Release r) {
    pending.remove(r);
    if (pending.isEmpty() && whenDone != null) {
      Runnable next = whenDone;
      whenDone = null;
      doneBound.cancel();
      next.run();
    }
  }

  /** Release is one lease being given back. */
  private final class Release {
    final long leaseId;
    final long ttlNanos;
    final long warnAt;
    int round;
    boolean over;
    boolean warned;
    String lastFailure;

    Release(long leaseId, long ttlNanos, long warnAt) {
      this.leaseId = leaseId;
      this.ttlNanos = ttlNanos;
      this.warnAt = warnAt;
    }

    void attempt(int attempt) {
      if (over) {
        // Given up (close's bound) while this retry was already due: the loop may be shut down.
        return;
      }
      int thisRound = ++round;
      Scheduler.Cancellable timeout =
          scheduler.schedule(() -> result(thisRound, attempt, "timed out"), rpcTimeoutNanos);
      CompletionStage<?> reply;
      StoreCallEvent event = StoreCallEvent.sent(name, "Release");
      try {
        reply = store.release(leaseId);
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      reply.whenComplete(
          (v, e) -> {
            String failure = e == null ? null : store.describe(e);
            event.answered(failure);
            try {
              scheduler.execute(
                  () -> {
                    timeout.cancel();
                    result(thisRound, attempt, failure);
                  });
            } catch (RejectedExecutionException closedAlready) {
              // The loop is gone; close already reported this lease.
            }
          });
    }

    void result(int ofRound, int attempt, String failure) {
      if (over) {
        return;
      }
      if (failure == null) {
        // Gone is gone: a late reply of an earlier attempt ends the release too, and the retry
        // already scheduled then sends nothing (each revoke etcd receives is a raft proposal).
        over = true;
        finished(this);
        return;
      }
      if (ofRound != round) {
        return; // a late failure of an attempt already retried
      }
      lastFailure = failure;
      // While close waits, its bound ends this release soon and giveUp says what became of it.
      if (!warned && whenDone == null && scheduler.nanoTime() - warnAt >= 0) {
        warned = true;
        log.warn(
            "{}: lease {} still not released after twice its TTL ({}); retrying until the store"
                + " answers",
            name, Long.toHexString(leaseId), failure);
      }
      long delay = backoffInitialNanos;
      for (int i = 0; i < attempt && delay < backoffMaxNanos; i++) {
        delay = Math.min(backoffMaxNanos, delay * 2);
      }
      round++; // a late failure of this round no longer counts
      try {
        scheduler.schedule(() -> attempt(attempt + 1), delay);
      } catch (RejectedExecutionException closedAlready) {
        giveUp(failure);
      }
    }

    void giveUp(String failure) {
      if (over) {
        return;
      }
      over = true;
      log.warn(
          "{}: could not release lease {} ({}); lease left to expire in <= TTL ({})",
          name,
          Long.toHexString(leaseId),
          failure,
          Durations.human(Duration.ofNanos(ttlNanos)));
      finished(this);
    }
  }
}
