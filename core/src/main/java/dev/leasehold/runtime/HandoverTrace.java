package dev.leasehold.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * HandoverTrace records the {@link System#nanoTime()} at which this JVM's electors pass each hop
 * of a handover (resign, revoke, watch event, campaign, event, listener), for the bench's
 * per-hop breakdown. It is off unless the JVM runs with {@code -Dleasehold.trace=true}; when off,
 * {@link #ON} is a constant false, every call site is guarded by it and the JIT removes them,
 * so it costs nothing and allocates nothing. When on, a mark is two array writes into a ring of
 * {@value #SIZE} entries, without allocation or locks; older entries are overwritten.
 *
 * <p>System.nanoTime() is CLOCK_MONOTONIC on Linux, shared by every process on the host, so
 * marks from the resigner's JVM and the successor's compare directly. This is a measuring aid,
 * not an API: not exported, and it reads only the clock.
 *
 * <p>Thread-safe: any thread may {@link #mark}; {@link #drain} should run from one thread
 * while marks are quiet (an entry being overwritten during a drain may be read torn).
 */
public final class HandoverTrace {
  /** ON is whether tracing was enabled at class initialisation ({@code -Dleasehold.trace=true}). */
  public static final boolean ON = Boolean.getBoolean("leasehold.trace");

  /**
   * Hop is one step a handover passes, in the order a standby-lease handover by release passes
   * them (up to ELECTED_LISTENER). A handover by transaction (PROTOCOL.md §4.5) passes
   * RESIGN_CALLED, RESIGN_ON_LOOP, HANDOVER_SENT, HANDOVER_ACKED, HANDOVER_ON_LOOP on the
   * resigner, and WATCH_PUT, WATCH_PUT_ON_LOOP, ELECTED_PUBLISHED, ELECTED_LISTENER on the
   * successor.
   */
  public enum Hop {
    /** RESIGN_CALLED: {@code resign()} was called (caller's thread). */
    RESIGN_CALLED,
    /** RESIGN_ON_LOOP: the event loop took the resign input. */
    RESIGN_ON_LOOP,
    /** REVOKE_SENT: the lease revoke went to the store (event loop). */
    REVOKE_SENT,
    /** REVOKE_ACKED: the store's thread completed the revoke. */
    REVOKE_ACKED,
    /** WATCH_DELETE: a watch notification of the key's deletion arrived (store thread). */
    WATCH_DELETE,
    /** WATCH_DELETE_ON_LOOP: the event loop took that notification. */
    WATCH_DELETE_ON_LOOP,
    /** POLL_ON_LOOP: the event loop took a read's reply (a successor reacting to a poll, not the watch). */
    POLL_ON_LOOP,
    /** GRANT_SENT: a lease grant went to the store (a campaign without a usable standby lease). */
    GRANT_SENT,
    /** GRANT_ON_LOOP: the event loop took a grant's reply. */
    GRANT_ON_LOOP,
    /** CAS_SENT: the campaign transaction went to the store (event loop). */
    CAS_SENT,
    /** CAS_ACKED: the store's thread completed the campaign transaction. */
    CAS_ACKED,
    /** CAS_ON_LOOP: the event loop took the campaign's reply. */
    CAS_ON_LOOP,
    /** ELECTED_PUBLISHED: the event loop published ELECTED. */
    ELECTED_PUBLISHED,
    /** ELECTED_LISTENER: a listener was called with ELECTED (dispatcher or user executor). */
    ELECTED_LISTENER,
    /** HANDOVER_SENT: the handover transaction (PROTOCOL.md §4.5) went to the store (event loop). */
    HANDOVER_SENT,
    /** HANDOVER_ACKED: the store's thread completed the handover transaction. */
    HANDOVER_ACKED,
    /** HANDOVER_ON_LOOP: the event loop took the handover's reply. */
    HANDOVER_ON_LOOP,
    /** WATCH_PUT: a watch notification of a put of the key arrived (store thread). */
    WATCH_PUT,
    /** WATCH_PUT_ON_LOOP: the event loop took that notification. */
    WATCH_PUT_ON_LOOP
  }

  /** Entry is one recorded mark. */
  public record Entry(Hop hop, long nanoTime) {}

  private static final int SIZE = 4096;
  private static final Hop[] HOPS = Hop.values();
  private static final AtomicLongArray TIMES = ON ? new AtomicLongArray(SIZE) : null;
  private static final AtomicIntegerArray WHAT = ON ? new AtomicIntegerArray(SIZE) : null;
  private static final AtomicLong NEXT = new AtomicLong();
  private static long drained;

  private HandoverTrace() {}

  /** mark records that {@code hop} was passed now; callers guard it with {@link #ON}. */
  public static void mark(Hop hop) {
    if (!ON) {
      return;
    }
    long n = NEXT.getAndIncrement();
    int i = (int) (n & (SIZE - 1));
    WHAT.set(i, hop.ordinal());
    TIMES.set(i, System.nanoTime());
  }

  /**
   * onLoop marks the event loop taking {@code input}, for the inputs a handover passes. The
   * runtime knows no store's input types, so they are told apart by their simple names.
   */
  static void onLoop(Input input) {
    if (!ON) {
      return;
    }
    switch (input.getClass().getSimpleName()) {
      case "Resign" -> mark(Hop.RESIGN_ON_LOOP);
      case "WatchDelete" -> mark(Hop.WATCH_DELETE_ON_LOOP);
      case "PollResult" -> mark(Hop.POLL_ON_LOOP);
      case "LeaseGranted" -> mark(Hop.GRANT_ON_LOOP);
      case "CampaignWon", "CampaignLost", "CampaignFailed" -> mark(Hop.CAS_ON_LOOP);
      case "HandedOver", "HandoverRefused", "HandoverFailed" -> mark(Hop.HANDOVER_ON_LOOP);
      case "WatchPut" -> mark(Hop.WATCH_PUT_ON_LOOP);
      default -> {}
    }
  }

  /** drain returns the marks recorded since the last drain, oldest first (at most the ring's size). */
  public static synchronized List<Entry> drain() {
    List<Entry> out = new ArrayList<>();
    if (!ON) {
      return out;
    }
    long end = NEXT.get();
    for (long n = Math.max(drained, end - SIZE); n < end; n++) {
      int i = (int) (n & (SIZE - 1));
      out.add(new Entry(HOPS[WHAT.get(i)], TIMES.get(i)));
    }
    drained = end;
    return out;
  }
}
