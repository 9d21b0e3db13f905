package dev.leasehold.jdbc;

import dev.leasehold.test.engine.EventQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SqlSimServer is the simulated MariaDB/MySQL server: one lease row (S1–S5 as LeaseTable's
 * statements say, against a server clock that is true time plus an offset that may step
 * forward), sessions that a client opens, a KILL or a restart ends, and GET_LOCK named locks
 * per session (re-entrant, released when the session ends, waiters woken in order).
 * A restart ends every session and lock and keeps the row (InnoDB is durable).
 * Not thread-safe.
 */
final class SqlSimServer {
  /** Sess is one server session; {@code alive} false once KILLed, aborted or lost to a restart. */
  static final class Sess {
    final long id;
    boolean alive = true;

    Sess(long id) {
      this.id = id;
    }
  }

  /** Row is the lease row; holder "" when released. */
  static final class Row {
    String holder;
    String candidate;
    long epoch;
    long version;
    long ttlMicros;
    long expiresAt;
  }

  private static final class Lock {
    Sess owner;
    int count;
  }

  private record Waiter(Sess s, String name, EventQueue.Ev timeout, Consumer<Object> reply) {}

  private final SqlSim sim;
  private long clockOffset;
  private long ids;
  Row row;
  final List<Sess> sessions = new ArrayList<>();
  private final Map<String, Lock> locks = new HashMap<>();
  private final List<Waiter> waiters = new ArrayList<>();

  SqlSimServer(SqlSim sim) {
    this.sim = sim;
  }

  long clock() {
    return sim.now + clockOffset;
  }

  void stepClock(long forward) {
    clockOffset += forward;
  }

  Sess open() {
    Sess s = new Sess(++ids);
    sessions.add(s);
    return s;
  }

  /** end ends {@code s}: its locks go, their waiters wake, its own waits fail. */
  void end(Sess s) {
    if (!s.alive) {
      return;
    }
    s.alive = false;
    sessions.remove(s);
    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.s == s) {
        it.remove();
        w.timeout.cancelled = true;
        w.reply.accept(FAILED);
      }
    }
    List<String> freed = new ArrayList<>();
    locks.forEach((n, l) -> {
      if (l.owner == s) {
        freed.add(n);
      }
    });
    for (String n : freed) {
      locks.remove(n);
      wake(n);
    }
  }

  void restart() {
    for (Sess s : new ArrayList<>(sessions)) {
      end(s);
    }
  }

  /**
   * holdForever has a session that no client owns and no fault ends (it is not among
   * {@link #sessions}, which KILL and restart go through) hold {@code name}.
   */
  void holdForever(String name) {
    acquire(new Sess(++ids), name);
  }

  /** FAILED answers a statement on a session that is over (the client sees an error). */
  static final Object FAILED = new Object();

  LeaseRow read() {
    if (row == null) {
      return null;
    }
    return new LeaseRow(row.holder.isEmpty() ? null : new HolderToken(row.holder), row.candidate, row.epoch,
        row.version, row.ttlMicros, row.expiresAt <= clock());
  }

  boolean insert(String holder, String candidate, long epoch, long ttlMicros) {
    if (row != null) {
      return false; // 1062
    }
    row = new Row();
    row.holder = holder;
    row.candidate = candidate;
    row.epoch = epoch;
    row.version = 1;
    row.ttlMicros = ttlMicros;
    row.expiresAt = clock() + ttlMicros * 1_000;
    return true;
  }

  boolean take(String holder, String candidate, long ttlMicros, String h0, long v0) {
    if (row == null || !row.holder.equals(h0) || row.version != v0
        || !(row.holder.isEmpty() || row.expiresAt <= clock())) {
      return false;
    }
    row.holder = holder;
    row.candidate = candidate;
    row.epoch++;
    row.version++;
    row.ttlMicros = ttlMicros;
    row.expiresAt = clock() + ttlMicros * 1_000;
    return true;
  }

  boolean renew(String holder, long epoch, long ttlMicros) {
    if (row == null || !row.holder.equals(holder) || row.epoch != epoch) {
      return false;
    }
    row.version++;
    row.expiresAt = clock() + ttlMicros * 1_000;
    return true;
  }

  boolean release(String holder, long epoch) {
    if (row == null || !row.holder.equals(holder) || row.epoch != epoch) {
      return false;
    }
    row.holder = "";
    row.version++;
    row.expiresAt = clock();
    return true;
  }

  /** getLock answers {@code reply} with true (1), false (0: timed out) or FAILED. */
  void getLock(Sess s, String name, long waitNanos, Consumer<Object> reply) {
    Lock l = locks.get(name);
    if (l == null || l.owner == s) {
      acquire(s, name);
      reply.accept(true);
    } else if (waitNanos <= 0) {
      reply.accept(false);
    } else {
      Waiter[] self = new Waiter[1];
      EventQueue.Ev timeout = sim.at(sim.now + waitNanos, () -> {
        waiters.remove(self[0]);
        reply.accept(false);
      });
      self[0] = new Waiter(s, name, timeout, reply);
      waiters.add(self[0]);
    }
  }

  void releaseLock(Sess s, String name) {
    Lock l = locks.get(name);
    if (l != null && l.owner == s && --l.count == 0) {
      locks.remove(name);
      wake(name);
    }
  }

  private void acquire(Sess s, String name) {
    Lock l = locks.computeIfAbsent(name, n -> new Lock());
    l.owner = s;
    l.count++;
  }

  private void wake(String name) {
    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.name.equals(name)) {
        it.remove();
        w.timeout.cancelled = true;
        acquire(w.s, name);
        w.reply.accept(true);
        return;
      }
    }
  }
}
