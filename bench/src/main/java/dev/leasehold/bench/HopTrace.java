package dev.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * HopTrace turns the Flight Recorder events core emits ({@code dev.leasehold.*}, see core's
 * {@code FlightEvents}) into the hops of a handover, in a contender JVM that runs with {@code
 * -Dleasehold.trace=true}: a {@link RecordingStream} in this JVM receives the events, and each
 * that marks a hop becomes an {@link Entry} with the {@code nanoTime} the event carries
 * (CLOCK_MONOTONIC, shared by every JVM of the host, so the resigner's and the successor's hops
 * compare directly). Without the property nothing is recorded and {@link #drain} returns nothing.
 *
 * <p>Thread-safe: the stream's thread appends, {@link #drain} takes.
 */
public final class HopTrace {
  /** ON is whether this JVM traces ({@code -Dleasehold.trace=true}). */
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
    /** START_ON_LOOP: the event loop took the elector's start (its first step; the cold start's trace). */
    START_ON_LOOP,
    /** POLL_SENT: a read of the key (a poll) went to the store (event loop). */
    POLL_SENT,
    /** POLL_ACKED: the store's thread completed the read. */
    POLL_ACKED,
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
    WATCH_PUT_ON_LOOP,
    /**
     * RELEASE_ON_LOOP: the event loop took the release's answer (SQL: the UPDATE that frees the
     * row, whose send and answer are REVOKE_SENT and REVOKE_ACKED).
     */
    RELEASE_ON_LOOP,
    /** WAKE_ACKED: a follower's wait on the holder's lock ended (SQL: {@code pg_advisory_lock} granted, GET_LOCK). */
    WAKE_ACKED,
    /** WAKE_ON_LOOP: the event loop took that wake-up. */
    WAKE_ON_LOOP,
    /** TAKE_SENT: the take of the free row went to the database (event loop). */
    TAKE_SENT,
    /** TAKE_ACKED: the store's thread completed the take's transaction. */
    TAKE_ACKED,
    /** TAKE_ON_LOOP: the event loop took the take's answer. */
    TAKE_ON_LOOP
  }

  /** Entry is one hop passed at {@code nanoTime}. */
  public record Entry(Hop hop, long nanoTime) {}

  // The loop's inputs a handover passes, by their simple names.
  private static final Map<String, Hop> ON_LOOP = Map.ofEntries(
      Map.entry("Start", Hop.START_ON_LOOP),
      Map.entry("Resign", Hop.RESIGN_ON_LOOP),
      Map.entry("WatchDelete", Hop.WATCH_DELETE_ON_LOOP),
      Map.entry("PollResult", Hop.POLL_ON_LOOP),
      Map.entry("LeaseGranted", Hop.GRANT_ON_LOOP),
      Map.entry("CampaignWon", Hop.CAS_ON_LOOP),
      Map.entry("CampaignLost", Hop.CAS_ON_LOOP),
      Map.entry("CampaignFailed", Hop.CAS_ON_LOOP),
      Map.entry("HandedOver", Hop.HANDOVER_ON_LOOP),
      Map.entry("HandoverRefused", Hop.HANDOVER_ON_LOOP),
      Map.entry("HandoverFailed", Hop.HANDOVER_ON_LOOP),
      Map.entry("WatchPut", Hop.WATCH_PUT_ON_LOOP),
      // The SQL machine's inputs (PROTOCOL.md §10); RowRead is its poll's answer.
      Map.entry("Released", Hop.RELEASE_ON_LOOP),
      Map.entry("Woken", Hop.WAKE_ON_LOOP),
      Map.entry("RowRead", Hop.POLL_ON_LOOP),
      Map.entry("Taken", Hop.TAKE_ON_LOOP));

  // The store calls a handover passes: the hop of the send, and of the answer (or null).
  private static final Map<String, Hop[]> CALLS = Map.of(
      "Release", new Hop[] {Hop.REVOKE_SENT, Hop.REVOKE_ACKED},
      "Poll", new Hop[] {Hop.POLL_SENT, Hop.POLL_ACKED},
      "GrantLease", new Hop[] {Hop.GRANT_SENT, null},
      "Campaign", new Hop[] {Hop.CAS_SENT, Hop.CAS_ACKED},
      "Handover", new Hop[] {Hop.HANDOVER_SENT, Hop.HANDOVER_ACKED},
      // The SQL machine's calls: its wait on the holder's lock, and its take of the free row.
      "Await", new Hop[] {null, Hop.WAKE_ACKED},
      "Take", new Hop[] {Hop.TAKE_SENT, Hop.TAKE_ACKED});

  private static final String[] EVENTS = {
      "dev.leasehold.Resign", "dev.leasehold.LoopStep", "dev.leasehold.StoreCall",
      "dev.leasehold.WatchNotification", "dev.leasehold.LeadershipChange", "dev.leasehold.ListenerCall"};

  private static final ConcurrentLinkedQueue<Entry> ENTRIES = new ConcurrentLinkedQueue<>();
  private static final AtomicLong FLUSHES = new AtomicLong();
  private static final Map<Long, CountDownLatch> WAITING = new java.util.concurrent.ConcurrentHashMap<>();

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /**
   * start begins recording, with {@code -Dleasehold.trace=true}, before the contenders do
   * anything: a JVM calls it first thing, so the first handover is traced too. Idempotent.
   */
  public static void start() {
    if (ON && STARTED.compareAndSet(false, true)) {
      RecordingStream rs = new RecordingStream();
      for (String e : EVENTS) {
        rs.enable(e).withoutThreshold();
      }
      rs.enable(Flush.class);
      rs.onEvent(HopTrace::take);
      rs.startAsync();
    }
  }

  /** Flush is this class's own marker: once it arrives, every event committed before it has. */
  @Name("dev.leasehold.bench.Flush")
  @StackTrace(false)
  static final class Flush extends Event {
    long seq;
  }

  private HopTrace() {}

  /**
   * drain returns the hops recorded since the last drain, oldest first; it waits (at most 5 s)
   * for the recording to deliver everything committed before the call.
   */
  public static List<Entry> drain() {
    List<Entry> out = new ArrayList<>();
    if (!ON) {
      return out;
    }
    start();
    long seq = FLUSHES.incrementAndGet();
    CountDownLatch arrived = new CountDownLatch(1);
    WAITING.put(seq, arrived);
    Flush f = new Flush();
    f.seq = seq;
    f.commit();
    try {
      arrived.await(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      WAITING.remove(seq);
    }
    Entry e;
    while ((e = ENTRIES.poll()) != null) {
      out.add(e);
    }
    out.sort(java.util.Comparator.comparingLong(Entry::nanoTime));
    return out;
  }

  private static void take(RecordedEvent e) {
    String type = e.getEventType().getName();
    switch (type) {
      case "dev.leasehold.bench.Flush" -> {
        CountDownLatch l = WAITING.get(e.getLong("seq"));
        if (l != null) {
          l.countDown();
        }
      }
      case "dev.leasehold.Resign" -> add(Hop.RESIGN_CALLED, e.getLong("nanoTime"));
      case "dev.leasehold.LoopStep" -> add(ON_LOOP.get(e.getString("input")), e.getLong("nanoTime"));
      case "dev.leasehold.StoreCall" -> {
        Hop[] hops = CALLS.get(e.getString("call"));
        if (hops != null) {
          add(hops[0], e.getLong("sentNanoTime"));
          add(hops[1], e.getLong("answeredNanoTime"));
        }
      }
      case "dev.leasehold.WatchNotification" ->
          add("PUT".equals(e.getString("type")) ? Hop.WATCH_PUT : Hop.WATCH_DELETE, e.getLong("nanoTime"));
      case "dev.leasehold.LeadershipChange" -> {
        if ("ELECTED".equals(e.getString("cause"))) {
          add(Hop.ELECTED_PUBLISHED, e.getLong("nanoTime"));
        }
      }
      case "dev.leasehold.ListenerCall" -> {
        if ("ELECTED".equals(e.getString("cause"))) {
          add(Hop.ELECTED_LISTENER, e.getLong("nanoTime"));
        }
      }
      default -> {}
    }
  }

  private static void add(Hop hop, long nanoTime) {
    if (hop != null) {
      ENTRIES.add(new Entry(hop, nanoTime));
    }
  }
}
