package dev.leasehold.runtime;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * FlightEvents are Leasehold's JDK Flight Recorder events: what an elector did and when, for
 * anyone who records the JVM ({@code java -XX:StartFlightRecording}, {@code jcmd <pid>
 * JFR.start}, JDK Mission Control, or a {@code jdk.jfr.consumer.RecordingStream} in process).
 * Not recorded, they cost a check each; they allocate nothing that escapes.
 *
 * <table>
 *   <caption>The events (category "Leasehold")</caption>
 *   <tr><th>name</th><th>when</th></tr>
 *   <tr><td>{@code dev.leasehold.LeadershipChange}</td><td>an event is published to listeners
 *       (from, to, cause, leader, token)</td></tr>
 *   <tr><td>{@code dev.leasehold.Resign}</td><td>{@code resign()} was called</td></tr>
 *   <tr><td>{@code dev.leasehold.Renewal}</td><td>a lease renewal was confirmed (its round
 *       trip)</td></tr>
 *   <tr><td>{@code dev.leasehold.StoreCall}</td><td>a call to the store, from its send to its
 *       answer on the store's thread (kind, failure)</td></tr>
 *   <tr><td>{@code dev.leasehold.WatchNotification}</td><td>a watch notification arrived on the
 *       store's thread (put or delete of a key)</td></tr>
 *   <tr><td>{@code dev.leasehold.LoopStep}</td><td>the event loop handled one input</td></tr>
 *   <tr><td>{@code dev.leasehold.ListenerCall}</td><td>a listener ran with an event</td></tr>
 * </table>
 *
 * <p>Each event also carries {@code nanoTime}, {@link System#nanoTime()} at the moment it
 * names: on Linux CLOCK_MONOTONIC, which every process of a host shares, so events recorded in
 * different JVMs of one host compare directly (the bench's handover breakdown rests on it).
 *
 * <p>Not thread-safe, as JFR events are not: each instance is filled and committed by one
 * thread at a time (a call's event is begun on the loop and committed on the store's thread,
 * after the loop let go of it).
 */
public final class FlightEvents {
  private FlightEvents() {}

  /** LeadershipChange is one event published to an elector's listeners. */
  @Name("dev.leasehold.LeadershipChange")
  @Label("Leadership Change")
  @Category("Leasehold")
  @Description("An elector published a leadership event to its listeners")
  @StackTrace(false)
  public static final class LeadershipChange extends Event {
    /** elector names the elector: candidate@key. */
    @Label("Elector") public String elector;
    /** from is the role the listeners were told before. */
    @Label("From") public String from;
    /** to is the role they are told now. */
    @Label("To") public String to;
    /** cause is the event's cause. */
    @Label("Cause") public String cause;
    /** leader is the leader's candidate id, or null when none is known. */
    @Label("Leader") public String leader;
    /** token is the term's fencing token when ELECTED, else 0. */
    @Label("Fencing Token") public long token;
    /** nanoTime is System.nanoTime() at publication. */
    @Label("Nano Time") public long nanoTime;
  }

  /** Resign is a call of {@code resign()}, on the caller's thread. */
  @Name("dev.leasehold.Resign")
  @Label("Resign")
  @Category("Leasehold")
  @Description("resign() was called")
  @StackTrace(false)
  public static final class Resign extends Event {
    /** elector names the elector. */
    @Label("Elector") public String elector;
    /** nanoTime is System.nanoTime() at the call. */
    @Label("Nano Time") public long nanoTime;
  }

  /** Renewal is a lease renewal the store confirmed. */
  @Name("dev.leasehold.Renewal")
  @Label("Renewal")
  @Category("Leasehold")
  @Description("A lease renewal was confirmed")
  @StackTrace(false)
  public static final class Renewal extends Event {
    /** elector names the elector. */
    @Label("Elector") public String elector;
    /** role is the role the lease serves (MASTER, or a follower's standby lease). */
    @Label("Role") public String role;
    /** roundTripNanos is from the renewal's send to its confirmation. */
    @Label("Round Trip") @jdk.jfr.Timespan public long roundTripNanos;
    /** nanoTime is System.nanoTime() at the confirmation. */
    @Label("Nano Time") public long nanoTime;
  }

  /** StoreCall is one call to the store, timed from its send to its answer. */
  @Name("dev.leasehold.StoreCall")
  @Label("Store Call")
  @Category("Leasehold")
  @Description("A call to the store, from its send to its answer on the store's thread")
  @StackTrace(false)
  public static final class StoreCall extends Event {
    /** elector names the elector. */
    @Label("Elector") public String elector;
    /** call is the call's kind (Grant, Campaign, Handover, Poll, Release, ...). */
    @Label("Call") public String call;
    /** failure is why it failed, or null when the store answered. */
    @Label("Failure") public String failure;
    /** sentNanoTime is System.nanoTime() when the call was sent. */
    @Label("Sent Nano Time") public long sentNanoTime;
    /** answeredNanoTime is System.nanoTime() when its answer arrived. */
    @Label("Answered Nano Time") public long answeredNanoTime;
  }

  /** WatchNotification is a watch notification arriving from the store. */
  @Name("dev.leasehold.WatchNotification")
  @Label("Watch Notification")
  @Category("Leasehold")
  @Description("A watch notification arrived on the store's thread")
  @StackTrace(false)
  public static final class WatchNotification extends Event {
    /** key is the key the notification is about. */
    @Label("Key") public String key;
    /** type is PUT or DELETE. */
    @Label("Type") public String type;
    /** revision is the store's revision of the change. */
    @Label("Revision") public long revision;
    /** nanoTime is System.nanoTime() at its arrival. */
    @Label("Nano Time") public long nanoTime;
  }

  /** LoopStep is the event loop handling one input of an elector's machine. */
  @Name("dev.leasehold.LoopStep")
  @Label("Loop Step")
  @Category("Leasehold")
  @Description("An elector's event loop handled one input")
  @StackTrace(false)
  public static final class LoopStep extends Event {
    /** elector names the elector. */
    @Label("Elector") public String elector;
    /** input is the input's kind (Resign, WatchDelete, CampaignWon, TimerFired, ...). */
    @Label("Input") public String input;
    /** nanoTime is System.nanoTime() when the loop took the input. */
    @Label("Nano Time") public long nanoTime;
  }

  /** ListenerCall is one listener running with one event. */
  @Name("dev.leasehold.ListenerCall")
  @Label("Listener Call")
  @Category("Leasehold")
  @Description("A leadership listener ran with an event")
  @StackTrace(false)
  public static final class ListenerCall extends Event {
    /** listener is the listener's class. */
    @Label("Listener") public String listener;
    /** cause is the event's cause. */
    @Label("Cause") public String cause;
    /** nanoTime is System.nanoTime() when the listener was called. */
    @Label("Nano Time") public long nanoTime;
  }
}
