package dev.leasehold.jdbc;

import dev.leasehold.Guarantee;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.runtime.StorePort;
import dev.leasehold.test.engine.EventQueue;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * SqlSimPort is one candidate's {@link StorePort} onto {@link SqlSimServer}, doing what
 * {@link SqlPort} does over JDBC: one statement at a time in the order sent, on one
 * session opened for the first statement that needs one (numbered 1, 2, ...); each call's
 * deadline is its {@code timeoutNanos(rpc)} from the hand-over, less the store's 2 ms slack;
 * a statement that fails, or whose reply is lost or late, ends the session (the server sees the
 * abort a little later, so a request already there may still be applied) and is answered
 * {@link SqlInput.Failed}; RELEASE_LOCK with no session is answered at once (session 0);
 * {@link SqlCommand.EndWait} aborts a wait in progress and fails later ones. Requests and
 * replies cross {@link SqlSim#net}: delayed, sometimes lost. Not thread-safe.
 */
final class SqlSimPort implements StorePort {
  private static final long SLACK = 2_000_000L;

  private record Job(SqlCommand cmd, StoreCall call, long deadline, CompletableFuture<Input> reply) {}

  private final SqlSim sim;
  private final SqlSim.Proc p;
  private final long rpc;
  private final ArrayDeque<Job> queue = new ArrayDeque<>();
  private Job current;
  private EventQueue.Ev timer;
  private SqlSimServer.Sess sess;
  private long number;
  private long sessions;
  private boolean endWaits;
  private boolean closed;
  boolean dead;

  SqlSimPort(SqlSim sim, SqlSim.Proc p, long rpc) {
    this.sim = sim;
    this.p = p;
    this.rpc = rpc;
  }

  @Override
  public Guarantee guarantee() {
    return Guarantee.SINGLE_DATABASE;
  }

  @Override
  public void open() {}

  @Override
  public CompletionStage<? extends Input> call(StoreCall call) {
    CompletableFuture<Input> reply = new CompletableFuture<>();
    if (dead) {
      return reply;
    }
    if (closed) {
      reply.complete(call.failed("the elector is closed"));
      return reply;
    }
    queue.add(new Job((SqlCommand) call, call, p.sched.nanoTime() + call.timeoutNanos(rpc) - SLACK, reply));
    sim.at(sim.now, this::next);
    return reply;
  }

  private void next() {
    if (dead || current != null || queue.isEmpty()) {
      return;
    }
    Job j = queue.poll();
    if (j.cmd instanceof SqlCommand.Unlock u && sess == null) {
      j.reply.complete(new SqlInput.Unlocked(u.op(), 0));
      sim.at(sim.now, this::next);
      return;
    }
    current = j;
    if (p.sched.nanoTime() - j.deadline >= 0) {
      fail(j, "timed out before the statement could be sent");
      return;
    }
    if (endWaits && j.cmd instanceof SqlCommand.Await) {
      fail(j, "the elector is closing");
      return;
    }
    if (sess == null) {
      sess = sim.server.open();
      number = ++sessions;
    }
    SqlSimServer.Sess s = sess;
    long n = number;
    timer = sim.at(p.sched.trueAt(j.deadline), () -> {
      if (current == j) {
        fail(j, "the server did not answer in time");
      }
    });
    if (sim.lost(p)) {
      return;
    }
    sim.at(sim.now + sim.delay(), () -> serve(j, s, n));
  }

  private void serve(Job j, SqlSimServer.Sess s, long n) {
    if (!s.alive) {
      reply(j, SqlSimServer.FAILED);
      return;
    }
    SqlSimServer srv = sim.server;
    String c = p.id;
    long ttl = p.ttlMicros;
    SqlCommand cmd = j.cmd;
    if (cmd instanceof SqlCommand.Read r) {
      reply(j, new SqlInput.RowRead(r.op(), n, srv.read()));
    } else if (cmd instanceof SqlCommand.Lock l) {
      if (sim.pooled) {
        reply(j, new SqlInput.Locked(l.op(), n, true));
      } else {
        srv.getLock(s, l.holder().lockName(), 0, v -> reply(j, v == SqlSimServer.FAILED ? v
            : new SqlInput.Locked(l.op(), n, (Boolean) v)));
      }
    } else if (cmd instanceof SqlCommand.Await a) {
      // Behind a transaction pooler the wait is on the client, which nothing ends early: a
      // lock that a session nobody ends holds for ever.
      String name = sim.pooled ? SqlSim.NEVER_FREED : a.holder().lockName();
      srv.getLock(s, name, a.waitNanos(), v -> reply(j, v == SqlSimServer.FAILED ? v
          : new SqlInput.Woken(a.op(), n, (Boolean) v)));
    } else if (cmd instanceof SqlCommand.Unlock u) {
      if (!sim.pooled) {
        srv.releaseLock(s, u.holder().lockName());
      }
      reply(j, new SqlInput.Unlocked(u.op(), n));
    } else if (cmd instanceof SqlCommand.Take t) {
      boolean won = t.basis() == null
          ? srv.insert(t.holder().value(), c, t.epoch(), ttl)
          : srv.take(t.holder().value(), c, ttl, t.basis().released() ? "" : t.basis().holder().value(),
              t.basis().version());
      if (won) {
        sim.taken(p, srv.row.epoch);
      }
      reply(j, new SqlInput.Taken(t.op(), n, won));
    } else if (cmd instanceof SqlCommand.Renew r) {
      reply(j, new SqlInput.Renewed(r.op(), n, srv.renew(r.holder().value(), r.epoch(), ttl)));
    } else if (cmd instanceof SqlCommand.Release r) {
      reply(j, new SqlInput.Released(r.op(), n, srv.release(r.holder().value(), r.epoch())));
    }
  }

  private void reply(Job j, Object answer) {
    if (sim.lost(p)) {
      return;
    }
    sim.at(sim.now + sim.delay(), () -> {
      if (dead || current != j) {
        return;
      }
      if (answer == SqlSimServer.FAILED) {
        fail(j, "the session was killed or failed");
      } else if (p.sched.nanoTime() - j.deadline > 0) {
        fail(j, "answered after its timeout");
      } else {
        done(j, (Input) answer);
      }
    });
  }

  private void fail(Job j, String reason) {
    endSession();
    done(j, j.call.failed(endWaits ? "ended by close()" : reason));
  }

  private void done(Job j, Input answer) {
    if (timer != null) {
      timer.cancelled = true;
      timer = null;
    }
    current = null;
    j.reply.complete(answer);
    sim.at(sim.now, this::next);
  }

  /** endSession aborts the session: the server notices after up to 30 ms. */
  private void endSession() {
    if (sess != null) {
      SqlSimServer.Sess s = sess;
      sess = null;
      sim.at(sim.now + sim.rnd.nextLong(30_000_000L), () -> sim.server.end(s));
    }
  }

  @Override
  public void send(Command command, Consumer<Input> inbox) {
    if (!(command instanceof SqlCommand.EndWait)) {
      throw new IllegalArgumentException("not a SQL store command: " + command);
    }
    endWaits = true;
    if (current != null && current.cmd instanceof SqlCommand.Await && sess != null) {
      SqlSimServer.Sess s = sess;
      sim.at(sim.now + sim.rnd.nextLong(1_000_000L), () -> sim.server.end(s));
    }
  }

  @Override
  public CompletionStage<?> release(long leaseId) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("S5, not leases"));
  }

  @Override
  public String describe(Throwable failure) {
    return String.valueOf(failure);
  }

  @Override
  public void close() {
    closed = true;
    // Polite close: after the statements already queued, the session ends.
    sim.at(sim.now, () -> closeWhenIdle());
  }

  private void closeWhenIdle() {
    if (dead) {
      return;
    }
    if (current != null || !queue.isEmpty()) {
      sim.at(sim.now + 1_000_000L, this::closeWhenIdle);
    } else if (sess != null) {
      sim.server.end(sess);
      sess = null;
    }
  }

  /** crash: nothing more is sent or completed; the server sees the connection drop soon after. */
  void abandon() {
    dead = true;
    if (sess != null) {
      SqlSimServer.Sess s = sess;
      sess = null;
      sim.at(sim.now + sim.rnd.nextLong(100_000_000L), () -> sim.server.end(s));
    }
  }
}
