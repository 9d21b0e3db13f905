package dev.leasehold.etcd.protocol;

import dev.leasehold.Participant;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.StoreCall;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * RandomDriver plays a runtime and an etcd that answer at random, within the runtime's
 * contract: every store call is answered exactly once (in any order, with any outcome), a
 * timer fires only for its latest arming and no earlier than asked, watch events name the
 * open watch, and time only moves forward. Keys and raft terms are drawn so that the
 * machine's own lease, token and term turn up often. The same seed gives the same inputs
 * for the same commands, so two machines can be compared input by input.
 */
final class RandomDriver {
  private static final long MS = 1_000_000L;

  private final SplittableRandom random;
  private final List<StoreCall> pending = new ArrayList<>();
  private final Map<TimerKind, Command.SetTimer> timers = new EnumMap<>(TimerKind.class);
  private long watchId;
  private long now = 1_000_000 * MS;
  private long revision = 10;
  private long term = 5;
  private long nextLease = 100;
  private long ownLease;
  private long ownToken;
  private boolean closed;

  RandomDriver(long seed) {
    random = new SplittableRandom(seed);
  }

  /** now is the monotonic time of the input last returned by {@link #next()}. */
  long now() {
    return now;
  }

  /** done is true once the machine was closed and every call it made was answered. */
  boolean done() {
    return closed && pending.isEmpty();
  }

  /** first is the input every run starts with. */
  Input first() {
    return new Input.Start();
  }

  /** sent records what the machine asked for in its last step. */
  void sent(List<Command> commands) {
    for (Command c : commands) {
      if (c instanceof StoreCall call) {
        pending.add(call);
      }
      if (c instanceof EtcdCommand.Campaign campaign) {
        ownLease = campaign.leaseId();
      } else if (c instanceof Command.SetTimer t) {
        timers.put((TimerKind) t.timer(), t);
      } else if (c instanceof Command.CancelTimer t) {
        timers.remove((TimerKind) t.timer());
      } else if (c instanceof EtcdCommand.Watch w) {
        watchId = w.watchId();
      } else if (c instanceof EtcdCommand.CancelWatch) {
        watchId = 0;
      }
    }
  }

  /** next draws the next input; time moves forward by a random amount first. */
  Input next() {
    now += random.nextInt(10) == 0 ? random.nextLong(3_000 * MS) : random.nextLong(150 * MS);
    if (random.nextInt(20) == 0) {
      term++;
    }
    for (int tries = 0; tries < 10; tries++) {
      int pick = random.nextInt(100);
      if (pick < 45 && !pending.isEmpty()) {
        return answer(pending.remove(random.nextInt(pending.size())));
      }
      if (pick < 70 && !timers.isEmpty()) {
        List<TimerKind> armed = new ArrayList<>(timers.keySet());
        Command.SetTimer t = timers.remove(armed.get(random.nextInt(armed.size())));
        now = Math.max(now, t.atNanos() + random.nextLong(5 * MS));
        return new Input.TimerFired(t.timer(), t.seq());
      }
      if (pick < 88 && watchId != 0) {
        return watchEvent();
      }
      if (pick < 91 && !closed) {
        return new Input.Resign();
      }
      if (pick == 93 && !closed && random.nextInt(8) == 0) {
        closed = true;
        return new Input.Close();
      }
      if (pick == 94) {
        return new Input.Start();
      }
      if (pick == 95) {
        // A timer input for an arming that was replaced or cancelled.
        return new Input.TimerFired(TimerKind.values()[random.nextInt(TimerKind.values().length)], random.nextLong(1, 50));
      }
    }
    return new Input.TimerFired(TimerKind.POLL, -1);
  }

  private Input watchEvent() {
    int pick = random.nextInt(10);
    if (pick == 0) {
      long id = watchId;
      watchId = 0;
      return new EtcdInput.WatchFailed(id, random.nextBoolean(), "stream reset");
    }
    if (pick == 1) {
      revision++;
      long lease = 1 + random.nextInt(3);
      return random.nextBoolean()
          ? new EtcdInput.WatchEnlisted(watchId, new Participant("other", lease, revision, revision), revision)
          : new EtcdInput.WatchWithdrawn(watchId, lease, revision);
    }
    if (pick < 5) {
      revision++;
      return new EtcdInput.WatchDelete(watchId, staleOrCurrent());
    }
    KeyRecord key = key();
    return new EtcdInput.WatchPut(watchId, key == null ? otherKey() : key, staleOrCurrent());
  }

  private Input answer(StoreCall call) {
    boolean fails = random.nextInt(6) == 0;
    if (fails) {
      if (call instanceof EtcdCommand.KeepAlive k) {
        return new EtcdInput.KeepAliveFailed(k.op(), random.nextInt(3) == 0, "lease not found");
      }
      return call.failed("timed out");
    }
    if (call instanceof EtcdCommand.Poll p) {
      return new EtcdInput.PollResult(p.op(), key(), staleOrCurrent());
    }
    if (call instanceof EtcdCommand.GrantLease g) {
      long ttl = random.nextInt(4) == 0 ? g.ttlSeconds() + 1 : g.ttlSeconds();
      return new EtcdInput.LeaseGranted(g.op(), nextLease++, ttl);
    }
    if (call instanceof EtcdCommand.Campaign c) {
      int pick = random.nextInt(4);
      revision++;
      if (pick < 2) {
        ownToken = revision;
        return new EtcdInput.CampaignWon(c.op(), revision);
      }
      KeyRecord holder =
          pick == 2
              ? new KeyRecord("me", c.leaseId(), revision, revision)
              : otherKey();
      return new EtcdInput.CampaignLost(c.op(), holder, revision);
    }
    if (call instanceof EtcdCommand.KeepAlive k) {
      long ttl = random.nextInt(10) == 0 ? 0 : 3;
      return new EtcdInput.KeepAliveAcked(k.op(), ttl, random.nextInt(8) == 0 ? term - 1 : term);
    }
    if (call instanceof EtcdCommand.ConfirmRead r) {
      return new EtcdInput.ConfirmRead(r.op(), key(), staleOrCurrent(), random.nextInt(8) == 0 ? term + 1 : term);
    }
    if (call instanceof EtcdCommand.ProbeLease p) {
      return new EtcdInput.LeaseProbed(p.op(), random.nextInt(4) != 0, random.nextBoolean());
    }
    if (call instanceof EtcdCommand.Rank r) {
      return new EtcdInput.Ranked(r.op(), random.nextInt(3), revision);
    }
    if (call instanceof EtcdCommand.Enlist e) {
      revision++;
      return new EtcdInput.Enlisted(e.op(), revision);
    }
    if (call instanceof EtcdCommand.Handover h) {
      revision++;
      return random.nextBoolean()
          ? new EtcdInput.HandedOver(h.op(), revision)
          : new EtcdInput.HandoverRefused(h.op(), key(), revision);
    }
    throw new AssertionError("unknown call " + call);
  }

  /** key is what a read shows: absent, another holder, or the machine's own lease. */
  private KeyRecord key() {
    int pick = random.nextInt(5);
    if (pick == 0) {
      return null;
    }
    if (pick == 1 && ownLease != 0 && ownToken > 0) {
      return new KeyRecord("me", ownLease, ownToken, ownToken);
    }
    if (pick == 2 && ownLease != 0) {
      long created = Math.max(1, revision - random.nextInt(3));
      return new KeyRecord("me", ownLease, created, created);
    }
    return otherKey();
  }

  private KeyRecord otherKey() {
    long created = Math.max(1, revision - random.nextInt(4));
    return new KeyRecord(random.nextBoolean() ? "other" : "me", 1 + random.nextInt(3), created, created);
  }

  private long staleOrCurrent() {
    return random.nextInt(5) == 0 ? Math.max(1, revision - 1 - random.nextInt(5)) : revision;
  }
}
