package dev.leasehold.spec.sim.session;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * SessionNet carries each process's requests to {@link SessionEtcd} and the replies and watch
 * responses back: base delays, slow periods, lossy periods and per-process partitions. A request
 * that gets no reply within the client's deadline (the session's own client puts rpcTimeout on
 * every call) fails, as jetcd's call with a deadline does.
 *
 * <p>A watch stream delivers in order. While its process is partitioned or paused it holds what
 * it has (TCP keeps it); a stalled stream ({@link Stream#stall}) silently drops everything from
 * then on, the silent watch the session's progress check exists for; a leader loss may cancel a
 * stream (the session watches with {@code requireLeader}).
 *
 * <p>Not thread-safe: one simulation owns it.
 */
final class SessionNet {
  static final long MS = 1_000_000L;

  private final SessionSim sim;
  final long[] partitionedUntil;
  final long[] slowUntil;
  final long[] slowMax;
  long lossyUntil;
  private final List<Stream> streams = new ArrayList<>();

  SessionNet(SessionSim sim, int slots) {
    this.sim = sim;
    partitionedUntil = new long[slots];
    slowUntil = new long[slots];
    slowMax = new long[slots];
  }

  private boolean cut(int slot) {
    return sim.now < partitionedUntil[slot] || (sim.now < lossyUntil && sim.rnd.nextInt(5) == 0);
  }

  private long delay(int slot) {
    long d = 50_000 + sim.rnd.nextLong(sim.quiet ? MS : 2 * MS);
    if (sim.now < slowUntil[slot]) {
      d += sim.rnd.nextLong(slowMax[slot]);
    }
    return d;
  }

  /**
   * rpc sends a request from {@code slot}, applied at etcd on arrival ({@code serve}; a null
   * answer is none). {@code done} gets the answer, or null once {@code deadline} passes without
   * one, exactly once.
   */
  void rpc(int slot, long deadline, Supplier<Object> serve, Consumer<Object> done) {
    boolean[] settled = new boolean[1];
    Consumer<Object> once = r -> {
      if (!settled[0]) {
        settled[0] = true;
        done.accept(r);
      }
    };
    sim.at(sim.now + deadline, () -> once.accept(null));
    if (cut(slot)) {
      return;
    }
    sim.at(sim.now + delay(slot), () -> {
      Object r = serve.get();
      if (r != null && !cut(slot)) {
        sim.at(sim.now + delay(slot), () -> once.accept(r));
      }
    });
  }

  /** Sink is what a watch stream delivers, in order. */
  interface Sink {
    void created(long revision);

    void changed(SessionEtcd.Change c);

    void progress(long revision);

    void failed(String reason);
  }

  /** watch opens a stream of {@code slot} on keys under {@code prefix}; {@code paused} holds its delivery. */
  Stream watch(int slot, String prefix, Supplier<Boolean> paused, Sink sink) {
    Stream s = new Stream(slot, prefix, paused, sink);
    streams.add(s);
    sim.at(sim.now + delay(slot), () -> {
      if (s.open && !cut(slot)) {
        long rev = sim.etcd.revision;
        s.live = true;
        s.enqueue(() -> sink.created(rev));
      } else if (s.open) {
        s.enqueue(() -> sink.failed("watch create timed out"));
      }
    });
    return s;
  }

  /** changed feeds a committed change to every live stream whose prefix covers it. */
  void changed(SessionEtcd.Change c) {
    for (Stream s : List.copyOf(streams)) {
      if (s.live && c.key().startsWith(s.prefix)) {
        s.enqueue(() -> s.sink.changed(c));
      }
    }
  }

  /** leaderLost cancels about half the live streams, as etcd does to a requireLeader watch. */
  void leaderLost() {
    for (Stream s : List.copyOf(streams)) {
      if (s.live && sim.rnd.nextBoolean()) {
        s.live = false;
        s.enqueue(() -> s.sink.failed("etcdserver: no leader"));
      }
    }
  }

  /** Stream is one watch stream. */
  final class Stream {
    final int slot;
    final String prefix;
    private final Supplier<Boolean> paused;
    private final Sink sink;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean pumping;
    boolean open = true;
    boolean live;
    boolean stalled;

    Stream(int slot, String prefix, Supplier<Boolean> paused, Sink sink) {
      this.slot = slot;
      this.prefix = prefix;
      this.paused = paused;
      this.sink = sink;
    }

    /** progress asks for a progress notification: the current revision, behind every event queued. */
    void requestProgress() {
      if (live && sim.etcd.hasLeader) {
        long rev = sim.etcd.revision;
        enqueue(() -> sink.progress(rev));
      }
    }

    /** stall makes the stream silent for good: it stays open and delivers nothing more. */
    void stall() {
      stalled = true;
      queue.clear();
    }

    void close() {
      open = false;
      live = false;
      queue.clear();
      streams.remove(this);
    }

    private void enqueue(Runnable delivery) {
      if (!open || stalled) {
        return;
      }
      queue.add(delivery);
      pump(delay(slot));
    }

    private void pump(long after) {
      if (pumping || queue.isEmpty()) {
        return;
      }
      pumping = true;
      sim.at(sim.now + after, () -> {
        pumping = false;
        if (!open || stalled) {
          queue.clear();
          return;
        }
        if (paused.get() || sim.now < partitionedUntil[slot]) {
          pump(MS);
          return;
        }
        queue.poll().run();
        pump(delay(slot) / 4);
      });
    }
  }
}
