package dev.leasehold.cli;

import dev.leasehold.Durations;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.Subscription;
import dev.leasehold.runtime.ConfigurationErrors;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supervisor is {@code run}'s loop: wait to lead, run the child while the term lasts, stop it
 * before the term's local deadline, hand over when it exits.
 *
 * <p>One thread (the caller of {@link #run()}) makes every decision; the elector's dispatcher,
 * the child's thread and the signal thread only put events on a queue. Not thread-safe
 * otherwise: call {@link #run()} once.
 */
final class Supervisor {
  private static final Logger log = LoggerFactory.getLogger("leasehold");
  private static final long MS = 1_000_000L;

  /**
   * Settings are run's validated options. Immutable.
   *
   * @param startFloor the least time left before the term's local deadline at which a child
   *     starts: what a healthy leader always has left ({@code RunCommand.healthyFloor}), which is
   *     at least grace + kill reserve; a term won with less waits for a renewal
   * @param skipIfLed exit 0 at once when another instance is seen leading before this one leads
   * @param holdAtLeast how long after the child's start the term is kept at least, or null
   */
  record Settings(List<String> command, Duration grace, Duration killReserve, Duration startFloor, Duration timeout,
      boolean rejoin, Guard guard, String backend, String endpoints, boolean skipIfLed, Duration holdAtLeast) {}

  private sealed interface Event permits Elected, Led, Refused, Lost, Exited, Signalled, Wake {}

  private record Elected(Leadership term) implements Event {}

  /** Led: another instance was seen leading (only with --skip-if-led). */
  private record Led(String leaderId) implements Event {}

  /** Refused: the store refused this instance for a configuration error. */
  private record Refused(String reason) implements Event {}

  private record Lost(Leadership term, LeadershipEvent event) implements Event {}

  private record Exited(int code) implements Event {}

  private record Signalled(String name, int number) implements Event {}

  /**
   * Wake: a term waiting for its first renewal may have changed (a renewal was confirmed, or the
   * term was lost); the waiting loop looks again, any other ignores it.
   */
  private record Wake() implements Event {}

  private static final Wake WAKE = new Wake();

  /** TermEnd is how a term ended: the child exited by itself (with its code), or was stopped. */
  private record TermEnd(boolean stopped, int code) {}

  private final LeaderElector elector;
  private final Settings settings;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private volatile String storeProblem;
  // Whether the store ever answered: a cold JVM's first call can outlast a short --timeout.
  private volatile boolean storeAnswered;
  // The configuration error last logged: each is logged once (dispatcher thread only).
  private String refusalLogged;
  private boolean stopRequested;
  private int exitWhileWaiting;
  // The token of the last term supervised: a term is run at most once, even if whenLeading()
  // hands it back while our own resign() is still on its way.
  private long lastToken;

  Supervisor(LeaderElector elector, Settings settings) {
    this.elector = elector;
    this.settings = settings;
  }

  /** run campaigns, supervises terms and returns the exit code; the elector is closed on return. */
  int run() throws InterruptedException {
    elector.onLeadershipChanged(this::observe);
    SignalRelay.install((name, number) -> events.add(new Signalled(name, number)));
    try {
      elector.start();
      while (true) {
        Leadership term = awaitTerm();
        if (term == null) {
          return exitWhileWaiting;
        }
        TermEnd end = supervise(term);
        boolean again = settings.rejoin() && !stopRequested;
        if (!end.stopped() && !again) {
          return end.code();
        }
        // A term we ended ourselves (deadline near, child gone) may still be held: hand it over.
        elector.resign();
        if (!again) {
          return Leasehold.LOST;
        }
        log.info("campaigning again (--rejoin)");
      }
    } finally {
      elector.close();
    }
  }

  // Returns the term to supervise, or null with exitWhileWaiting set.
  private Leadership awaitTerm() throws InterruptedException {
    long end = settings.timeout() == null ? Long.MAX_VALUE : System.nanoTime() + settings.timeout().toNanos();
    elector.whenLeading().thenAccept(t -> events.add(new Elected(t)));
    // A term won with less of its local deadline left than a healthy leader always has: the child
    // could be stopped as it starts (at --grace plus the kill reserve), so it starts once a
    // renewal has moved the deadline out. Renewals wake this thread (renewals is open exactly
    // while early is set); the wait is still bounded by the term's deadline, so a term that ends
    // without a renewal is noticed then.
    Leadership early = null;
    Subscription renewals = null;
    try {
      while (true) {
        if (early != null && !early.isValid()) {
          log.warn("the term of fencing token {} ended before its first renewal: no child started", early.fencingToken());
          renewals.close();
          renewals = null;
          askAgainAfter(early);
          early = null;
        } else if (early != null && roomToStart(early)) {
          log.info("first renewal confirmed: {} ms of the term's local deadline left", early.timeLeft().toMillis());
          lastToken = early.fencingToken();
          return early;
        }
        long now = System.nanoTime();
        long wait = end == Long.MAX_VALUE ? Long.MAX_VALUE : end - now;
        if (early != null) {
          // The half millisecond keeps a term at its very deadline from spinning.
          wait = Math.min(wait, Math.max(MS / 2, early.timeLeft().toNanos()));
        }
        Event e = wait <= 0 ? null : events.poll(wait, TimeUnit.NANOSECONDS);
        if (e == null && early != null && end - System.nanoTime() > 0) {
          continue;
        }
        if (e == null) {
          String problem = storeProblem != null ? storeProblem : storeAnswered ? null : "it has not answered yet";
          String unreachable = problem == null ? "" : "; the store is unreachable: " + problem;
          if (early != null) {
            log.warn("leader with fencing token {}, but no child within --timeout {}: the term's local deadline was too"
                + " close to start it ({} ms left, under the {} ms floor a healthy leader has) and no renewal moved it"
                + " out in time{}", early.fencingToken(), Durations.seconds(settings.timeout()),
                early.timeLeft().toMillis(), startFloor() / MS, unreachable);
          } else {
            log.warn("not leader within --timeout {}{}", Durations.seconds(settings.timeout()),
                problem == null ? " (another candidate leads)" : unreachable);
          }
          exitWhileWaiting = problem == null ? Leasehold.NOT_ACQUIRED : Leasehold.STORE_UNREACHABLE;
          return null;
        }
        if (e instanceof Signalled s) {
          log.info("SIG{} while no child runs: releasing and exiting", s.name());
          exitWhileWaiting = 128 + s.number();
          return null;
        }
        if (e instanceof Refused) {
          // Only the operator can fix it (observe logged it): waiting for --timeout cannot help.
          exitWhileWaiting = Leasehold.CONFIG;
          return null;
        }
        if (e instanceof Led l) {
          // Cron and systemd count only a non-zero exit as a failure; this firing is someone else's.
          log.info("skipped: {} leads", l.leaderId());
          exitWhileWaiting = 0;
          return null;
        }
        if (e instanceof Elected el) {
          Leadership t = el.term();
          if (t.isValid() && t.fencingToken() != lastToken && !roomToStart(t)) {
            log.info("leader with fencing token {}, but its local deadline is {} ms away, less than a healthy leader "
                + "has: the child starts after the first renewal", t.fencingToken(), t.timeLeft().toMillis());
            early = t;
            if (renewals == null) {
              // Subscribed before the loop looks again, so a renewal in between is seen either way.
              // Any confirmed renewal wakes (a follower's standby lease too): waking only looks again.
              renewals = elector.onRenewal(r -> events.add(WAKE));
            }
            t.whenLost().thenRun(() -> events.add(WAKE));
          } else if (t.isValid() && t.fencingToken() != lastToken) {
            lastToken = t.fencingToken();
            return t;
          } else {
            // A term already over, or ours being resigned: ask again once it has ended.
            askAgainAfter(t);
          }
        }
        // Wake, and Lost and Exited of an earlier term: the loop looks again.
      }
    } finally {
      if (renewals != null) {
        renewals.close();
      }
    }
  }

  // roomToStart: the term's local deadline is as far as a healthy leader's always is, and further
  // than --grace plus the kill reserve, so the child is not stopped as it starts.
  private boolean roomToStart(Leadership term) {
    return term.timeLeft().toNanos() > startFloor();
  }

  // startFloor is the time left, in ns, above which a term's child starts.
  private long startFloor() {
    long stopAt = settings.grace().toNanos() + settings.killReserve().toNanos();
    return Math.max(stopAt, settings.startFloor().toNanos());
  }

  private void askAgainAfter(Leadership over) {
    over.whenLost().thenRun(() -> elector.whenLeading().thenAccept(next -> events.add(new Elected(next))));
  }

  private TermEnd supervise(Leadership term) throws InterruptedException {
    Child child;
    long childStarted = System.nanoTime();
    try {
      child = Child.start(settings.guard(), settings.command(), environment(term),
          code -> events.add(new Exited(code)));
    } catch (IOException e) {
      log.error("cannot start {}: {}", settings.command().get(0), e.getMessage());
      return new TermEnd(false, Leasehold.CANNOT_EXECUTE);
    }
    log.info("leader with fencing token {}; child {} started: {}", term.fencingToken(), child.pid(),
        String.join(" ", settings.command()));
    term.whenLost().thenAccept(ev -> events.add(new Lost(term, ev)));
    long grace = settings.grace().toNanos();
    long reserve = settings.killReserve().toNanos();
    long deadline = System.nanoTime() + term.timeLeft().toNanos();
    long termSent = 0;
    long killAt = Long.MAX_VALUE;
    boolean killed = false;
    boolean stopping = false;
    while (true) {
      long now = System.nanoTime();
      long left = term.timeLeft().toNanos();
      if (left > 0) {
        deadline = now + left;
      }
      if (!stopping && left <= grace + reserve) {
        // SIGKILL by deadline - reserve at the latest, so the child is gone before the deadline.
        stopping = true;
        termSent = now;
        killAt = Math.min(now + grace, deadline - reserve);
        if (killAt > now) {
          log.warn("{}: SIGTERM to child {}", left > 0
              ? "local deadline in " + left / MS + " ms with no confirmed renewal" : "the term ended", child.pid());
          child.signal("TERM");
        }
      }
      if (stopping && !killed && now >= killAt) {
        log.warn("child {} still there {} ms after the term's end began: SIGKILL", child.pid(), (now - termSent) / MS);
        child.signal("KILL");
        killed = true;
      }
      long wait = !stopping ? left - grace - reserve : killed ? 50 * MS : killAt - now;
      Event e = events.poll(Math.max(MS / 2, wait), TimeUnit.NANOSECONDS);
      if (e instanceof Exited x) {
        if (!child.killLeftovers()) {
          log.warn("child {} exited, but its PID namespace's init is still there: processes of its tree may outlive"
              + " the term", child.pid());
        }
        long gone = System.nanoTime();
        if (!stopping) {
          log.info("child {} exited with {}: the term ends", child.pid(), x.code());
          hold(term, childStarted);
          return new TermEnd(false, x.code());
        }
        long margin = (deadline - gone) / MS;
        log.info("child {} gone after {} ms ({}, exit {}), {} ms {} the local deadline", child.pid(),
            (gone - termSent) / MS, killed ? "SIGKILL" : "SIGTERM", x.code(), Math.abs(margin),
            margin >= 0 ? "before" : "AFTER");
        return new TermEnd(true, x.code());
      }
      if (e instanceof Lost l && l.term() == term) {
        log.warn("leadership lost: {}", l.event().cause());
      }
      if (e instanceof Signalled s) {
        log.info("SIG{}: forwarded to child {}", s.name(), child.pid());
        stopRequested = true;
        child.signal(s.name());
      }
    }
  }

  /**
   * hold keeps the term until --hold-at-least after the child started, so that an instance whose
   * timer fires a little later finds the key held and skips. The child's exit code stands
   * whatever happens here: a term lost during the hold (a later firing may then run the job
   * again) can only be logged, and a signal only ends the hold early.
   */
  private void hold(Leadership term, long childStarted) throws InterruptedException {
    if (settings.holdAtLeast() == null) {
      return;
    }
    long until = childStarted + settings.holdAtLeast().toNanos();
    long left = until - System.nanoTime();
    if (left <= 0) {
      return;
    }
    if (!term.isValid()) {
      log.warn("leadership already lost, so not held for --hold-at-least {}: a firing from now on may run the job"
          + " again", Durations.seconds(settings.holdAtLeast()));
      return;
    }
    log.info("holding the term {} ms more (--hold-at-least {} after the child's start)", left / MS,
        Durations.seconds(settings.holdAtLeast()));
    while (left > 0) {
      Event e = events.poll(left, TimeUnit.NANOSECONDS);
      if (e instanceof Lost l && l.term() == term) {
        log.warn("leadership lost during --hold-at-least ({}): a firing from now on may run the job again",
            l.event().cause());
        return;
      }
      if (e instanceof Signalled s) {
        log.info("SIG{} during --hold-at-least: releasing now", s.name());
        stopRequested = true;
        return;
      }
      left = until - System.nanoTime();
    }
  }

  private Map<String, String> environment(Leadership term) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("LEASEHOLD_ELECTION_KEY", term.electionKey());
    env.put("LEASEHOLD_LEADER_ID", term.candidateId());
    env.put("LEASEHOLD_FENCING_TOKEN", Long.toString(term.fencingToken()));
    env.put("LEASEHOLD_LEASE_ID", Long.toHexString(term.leaseId()));
    // Granted, not asked for: etcd 3.4 grants 2 s for --ttl 1. Seconds, with a fraction if any (SQL).
    env.put("LEASEHOLD_LEASE_TTL",
        java.math.BigDecimal.valueOf(term.grantedTtl().toMillis(), 3).stripTrailingZeros().toPlainString());
    env.put("LEASEHOLD_BACKEND", settings.backend());
    if (settings.endpoints() != null) {
      env.put("LEASEHOLD_ENDPOINTS", settings.endpoints());
    }
    return env;
  }

  private void observe(LeadershipEvent e) {
    switch (e.cause()) {
      case STORE_UNAVAILABLE -> {
        String reason = e.reason().orElse("unavailable");
        storeProblem = reason;
        if (ConfigurationErrors.is(reason)) {
          // The library's own lines about it are filtered out (ConfigurationErrorFilter): this is the one.
          if (!reason.equals(refusalLogged)) {
            log.error("{}", StoreOptions.inOptionNames(reason));
            refusalLogged = reason;
          }
          events.add(new Refused(reason));
        }
      }
      case STORE_RECOVERED, ELECTED -> {
        storeProblem = null;
        storeAnswered = true;
      }
      case LEADER_CHANGED -> {
        storeAnswered = true;
        if (settings.skipIfLed() && e.leaderId().isPresent()) {
          events.add(new Led(e.leaderId().get()));
          return; // awaitTerm says it in its one line
        }
        log.info("leader is {} (fencing token {})",
            e.leaderId().orElse("nobody"), e.fencingToken().isPresent() ? e.fencingToken().getAsLong() : "-");
      }
      default -> { }
    }
  }
}
