package dev.leasehold.spring;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LeaderOnlyCalls tracks the {@code @LeaderOnly} calls running now and interrupts those whose
 * term ended, when the elector reports the loss.
 *
 * <p>A call registers before it checks {@link Leadership#isValid()}, and the loss event comes
 * after validity turned false, so a call either sees its term invalid and is skipped, or is
 * registered when the loss is handled and is interrupted: none runs on unnoticed. One listener
 * for all calls, rather than a callback per call on {@code whenLost()}, which would pile up for
 * as long as a term lasts. Thread-safe.
 */
final class LeaderOnlyCalls implements LeadershipListener {
  private static final Logger log = LoggerFactory.getLogger(LeaderOnlyCalls.class);

  private final Set<Call> running = ConcurrentHashMap.newKeySet();

  /** enter registers a call of {@code method} in {@code term} on the current thread. */
  Call enter(Leadership term, String method, boolean interruptOnLoss) {
    Call call = new Call(term, method, Thread.currentThread(), interruptOnLoss);
    running.add(call);
    return call;
  }

  @Override
  public void onLeadershipChanged(LeadershipEvent event) {
    if (!event.isLost()) {
      return;
    }
    for (Call call : running) {
      if (!call.term.isValid()) {
        call.interrupt(event.cause());
      }
    }
  }

  /** runningCount is how many calls are registered now; for tests and diagnostics. */
  int runningCount() {
    return running.size();
  }

  /** Call is one running {@code @LeaderOnly} call. Thread-safe: interrupt and exit share its lock. */
  final class Call {
    private final Leadership term;
    private final String method;
    private final Thread thread;
    private final boolean interruptOnLoss;
    private boolean done;
    private boolean interrupted;

    private Call(Leadership term, String method, Thread thread, boolean interruptOnLoss) {
      this.term = term;
      this.method = method;
      this.thread = thread;
      this.interruptOnLoss = interruptOnLoss;
    }

    private synchronized void interrupt(LeadershipEvent.Cause cause) {
      if (done || interrupted) {
        return;
      }
      if (interruptOnLoss) {
        interrupted = true;
        log.info("interrupting {} on thread {}: term {} ended ({})", method, thread.getName(),
            term.fencingToken(), cause);
        thread.interrupt();
      } else {
        log.info("{} still running on thread {} after its term {} ended ({})", method,
            thread.getName(), term.fencingToken(), cause);
      }
    }

    /** exit unregisters the call, on its own thread, and clears the interrupt it was sent. */
    void exit() {
      running.remove(this);
      boolean clear;
      synchronized (this) {
        done = true;
        clear = interrupted;
      }
      if (clear) {
        // The thread is the scheduler's: its next task must not start interrupted.
        Thread.interrupted();
      }
    }
  }
}
