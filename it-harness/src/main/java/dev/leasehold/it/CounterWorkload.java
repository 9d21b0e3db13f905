package dev.leasehold.it;

import dev.leasehold.Leadership;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * CounterWorkload is the leader-only work of the chaos suite: a fenced read-modify-write of a
 * shared counter, in a loop, while the current term is valid. Subclasses make one attempt on
 * their store ({@link EtcdCounterWorkload}, {@link JdbcCounterWorkload}); this class owns the
 * loop and the line protocol of {@link CandidateMain}: {@code SEND <sendNanos> <token> <seq>}
 * just before sending, and
 * {@code WRITE <checkNanos> <sendNanos> <endNanos> <token> <OK|FENCED|CONFLICT|ERROR> <value> <seq>}
 * once the outcome is known.
 *
 * <p>Thread-safe: {@link #lead} and {@link #stop} may be called from any thread (the event
 * dispatcher) while the loop runs on its own thread; {@link #attempt} runs on the loop's thread only.
 */
abstract class CounterWorkload implements Runnable {
  /** id is this candidate's id, written into the store with each value. */
  protected final String id;
  /** thinkMillis is the pause between reading the counter and writing it. */
  protected final long thinkMillis;
  private final PrintStream out;
  private final AtomicReference<Leadership> term = new AtomicReference<>();
  private final Object signal = new Object();
  private volatile boolean stopped;
  private long seq;

  CounterWorkload(String id, long thinkMillis, PrintStream out) {
    this.id = id;
    this.thinkMillis = thinkMillis;
    this.out = out;
  }

  /** lead hands the loop a new term to work for. */
  void lead(Leadership leadership) {
    term.set(leadership);
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  /** stop ends the loop after the current attempt. */
  void stop() {
    stopped = true;
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  @Override
  public void run() {
    while (!stopped) {
      Leadership l = term.get();
      if (l == null || !l.isValid()) {
        synchronized (signal) {
          try {
            signal.wait(20);
          } catch (InterruptedException e) {
            return;
          }
        }
        continue;
      }
      try {
        attempt(l);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        sleep(50);
      }
    }
  }

  /**
   * attempt makes one read-think-write cycle for {@code l}: it calls {@link #sent} just before
   * sending the write and {@link #written} with its outcome.
   */
  abstract void attempt(Leadership l) throws InterruptedException;

  /** nextSeq numbers the next attempt of this process. */
  final long nextSeq() {
    return ++seq;
  }

  /**
   * sent logs an attempt before it is sent: if this JVM is killed with the write in flight, the
   * checker still knows the attempt existed (its outcome unknown). Returns the send time.
   */
  final long sent(long token, long n) {
    long send = System.nanoTime();
    out.println("SEND " + send + " " + token + " " + n);
    return send;
  }

  /** written logs the attempt's outcome, and backs off a little after an ERROR. */
  final void written(long check, long send, long token, String outcome, long shown, long n) {
    long end = System.nanoTime();
    out.println("WRITE " + check + " " + send + " " + end + " " + token + " " + outcome + " " + shown + " " + n);
    if (outcome.equals("ERROR")) {
      sleep(50);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
