package dev.leasehold.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Floor measures what this machine and cluster allow at best, with raw jetcd calls and no
 * election library in between: round trips of the calls an election makes, the latency from a
 * write to a watcher's notification, and the three shapes a handover path can take.
 *
 * <p>The handover paths all start with the leader revoking its lease at t0 and end when the
 * first of two followers (each with its own client and a watch on the key) knows it leads:
 * "grant + txn" is Leasehold's path today (a follower grants a lease, then commits the
 * compare-and-swap); "standby txn" is the same with a lease the follower granted beforehand;
 * "read only" is what etcd's server-side election does after the delete (a linearizable read,
 * no write). The standby path runs twice: back to back (each trial's revoke right after the
 * leader's put, as the issue first measured it), and after the same 150–250 ms of quiet that
 * precedes each handover trial of {@link HandoverPhase}, since a cluster and clients that have
 * been idle answer the first call later. Not thread-safe; run from one thread.
 */
final class Floor {
  static final String TXN = "txn round trip (1 proposal)";
  static final String GRANT = "lease grant round trip (1 proposal)";
  static final String REVOKE = "lease revoke round trip (1 proposal)";
  static final String GET = "linearizable get round trip (0 proposals)";
  static final String WATCH = "put → watch notification";
  static final String PATH_GRANT_TXN = "handover path: revoke → watch → grant → txn (Leasehold today)";
  static final String PATH_STANDBY = "handover path: revoke → watch → txn with standby lease";
  static final String PATH_READ = "handover path: revoke → watch → linearizable get (etcd election's shape)";
  static final String PATH_STANDBY_IDLE =
      "handover path: revoke → watch → txn with standby lease, after 150–250 ms idle (as a handover trial)";

  // The standby path's hops, from t0 (the revoke sent): see hops().
  static final String HOP_REVOKE_ACKED = "bare standby path: revoke acked";
  static final String HOP_WATCH = "bare standby path: watch event";
  static final String HOP_TXN_SENT = "bare standby path: txn sent";
  static final String HOP_TXN_ACKED = "bare standby path: txn acked";

  private final List<String> endpoints;
  private final Map<String, List<Double>> hops = new LinkedHashMap<>();
  private final long ttlSeconds;
  private final int idleSamples;

  /** Floor measures against {@code endpoints}; the idle standby path takes {@code idleSamples}. */
  Floor(List<String> endpoints, long ttlSeconds, int idleSamples) {
    this.endpoints = endpoints;
    this.ttlSeconds = ttlSeconds;
    this.idleSamples = idleSamples;
  }

  /** run measures every figure {@code samples} times after {@code warmup} unrecorded rounds. */
  Map<String, List<Double>> run(int samples, int warmup) throws Exception {
    Map<String, List<Double>> out = new LinkedHashMap<>();
    String[] eps = endpoints.toArray(String[]::new);
    try (Client a = Client.builder().endpoints(eps).build();
        Client b = Client.builder().endpoints(eps).build();
        Client c = Client.builder().endpoints(eps).build()) {
      String base = "/leasehold-bench/floor/" + UUID.randomUUID() + "/";
      roundTrips(a, base, samples, warmup, out);
      watchNotify(a, b, bs(base + "watched"), samples, warmup, out);
      for (String path : List.of(PATH_GRANT_TXN, PATH_STANDBY, PATH_READ)) {
        out.put(path, handoverPath(path, a, List.of(b, c), bs(base + "election"), samples, warmup));
      }
      out.put(PATH_STANDBY_IDLE,
          handoverPath(PATH_STANDBY_IDLE, a, List.of(b, c), bs(base + "election"), idleSamples, warmup));
      a.getKVClient()
          .delete(bs(base), DeleteOption.builder().isPrefix(true).build())
          .get(5, TimeUnit.SECONDS);
    }
    return out;
  }

  private void roundTrips(Client a, String base, int samples, int warmup, Map<String, List<Double>> out)
      throws Exception {
    List<Double> txn = new ArrayList<>();
    List<Double> grant = new ArrayList<>();
    List<Double> revoke = new ArrayList<>();
    List<Double> get = new ArrayList<>();
    for (int i = 0; i < warmup + samples; i++) {
      boolean rec = i >= warmup;
      ByteSequence k = bs(base + "txn/" + i);
      long t = System.nanoTime();
      long lease = a.getLeaseClient().grant(ttlSeconds).get(5, TimeUnit.SECONDS).getID();
      long t1 = System.nanoTime();
      a.getKVClient().txn()
          .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
          .Then(Op.put(k, bs("x"), PutOption.DEFAULT))
          .Else(Op.get(k, GetOption.DEFAULT))
          .commit().get(5, TimeUnit.SECONDS);
      long t2 = System.nanoTime();
      a.getKVClient().get(k).get(5, TimeUnit.SECONDS);
      long t3 = System.nanoTime();
      a.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
      long t4 = System.nanoTime();
      if (rec) {
        grant.add(ms(t1 - t));
        txn.add(ms(t2 - t1));
        get.add(ms(t3 - t2));
        revoke.add(ms(t4 - t3));
      }
    }
    out.put(TXN, txn);
    out.put(GRANT, grant);
    out.put(REVOKE, revoke);
    out.put(GET, get);
  }

  private void watchNotify(Client writer, Client watcher, ByteSequence k, int samples, int warmup,
      Map<String, List<Double>> out) throws Exception {
    List<Double> lat = new ArrayList<>();
    CompletableFuture<?>[] pending = new CompletableFuture<?>[1];
    long[] arrived = new long[1];
    Object lock = new Object();
    Watch.Watcher w = watcher.getWatchClient().watch(k, Watch.listener(r -> {
      long now = System.nanoTime();
      synchronized (lock) {
        if (pending[0] != null) {
          arrived[0] = now;
          pending[0].complete(null);
        }
      }
    }));
    try {
      // Let the watch be established before the first timed put.
      Thread.sleep(200);
      for (int i = 0; i < warmup + samples; i++) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        synchronized (lock) {
          pending[0] = f;
        }
        long t = System.nanoTime();
        writer.getKVClient().put(k, bs("v" + i)).get(5, TimeUnit.SECONDS);
        f.get(5, TimeUnit.SECONDS);
        synchronized (lock) {
          pending[0] = null;
          if (i >= warmup) {
            lat.add(ms(arrived[0] - t));
          }
        }
      }
    } finally {
      w.close();
    }
    out.put(WATCH, lat);
  }

  /**
   * hops is the standby path's times from t0 at each hop (of the follower that won), one list
   * per hop, filled by {@link #run}.
   */
  Map<String, List<Double>> hops() {
    return hops;
  }

  /** One trial's state: armed from the leader's put until a follower has won. */
  private static final class Trial {
    final long afterRevision;
    final CompletableFuture<Long> won = new CompletableFuture<>();
    // The winner's watch arrival and txn send time (set before won completes).
    volatile long watchAt;
    volatile long txnSentAt;

    Trial(long afterRevision) {
      this.afterRevision = afterRevision;
    }
  }

  private List<Double> handoverPath(String path, Client leader, List<Client> followers, ByteSequence k,
      int samples, int warmup) throws Exception {
    List<Double> lat = new ArrayList<>();
    Trial[] current = new Trial[1];
    AtomicLongArray standby = new AtomicLongArray(followers.size());
    List<Watch.Watcher> watchers = new ArrayList<>();
    try {
      for (int f = 0; f < followers.size(); f++) {
        Client fc = followers.get(f);
        int idx = f;
        if (standby(path)) {
          standby.set(idx, fc.getLeaseClient().grant(ttlSeconds * 10).get(5, TimeUnit.SECONDS).getID());
        }
        watchers.add(fc.getWatchClient().watch(k, WatchOption.DEFAULT, Watch.listener(r -> {
          Trial t;
          synchronized (current) {
            t = current[0];
          }
          if (t == null || t.won.isDone()) {
            return;
          }
          for (WatchEvent e : r.getEvents()) {
            if (e.getEventType() == WatchEvent.EventType.DELETE
                && e.getKeyValue().getModRevision() > t.afterRevision) {
              react(path, fc, k, standby, idx, t, System.nanoTime());
            }
          }
        })));
      }
      Thread.sleep(200);
      for (int i = 0; i < warmup + samples; i++) {
        long lease = leader.getLeaseClient().grant(ttlSeconds).get(5, TimeUnit.SECONDS).getID();
        long rev = leader.getKVClient().put(k, bs("leader"), PutOption.builder().withLeaseId(lease).build())
            .get(5, TimeUnit.SECONDS).getHeader().getRevision();
        Trial t = new Trial(rev);
        synchronized (current) {
          current[0] = t;
        }
        if (path.equals(PATH_STANDBY_IDLE)) {
          Thread.sleep(150 + ThreadLocalRandom.current().nextInt(100));
        }
        long t0 = System.nanoTime();
        long acked = leader.getLeaseClient().revoke(lease).thenApply(x -> System.nanoTime()).get(5, TimeUnit.SECONDS);
        long at = t.won.get(5, TimeUnit.SECONDS);
        if (i >= warmup) {
          lat.add(ms(at - t0));
          if (path.equals(PATH_STANDBY)) {
            hops.computeIfAbsent(HOP_REVOKE_ACKED, x -> new ArrayList<>()).add(ms(acked - t0));
            hops.computeIfAbsent(HOP_WATCH, x -> new ArrayList<>()).add(ms(t.watchAt - t0));
            hops.computeIfAbsent(HOP_TXN_SENT, x -> new ArrayList<>()).add(ms(t.txnSentAt - t0));
            hops.computeIfAbsent(HOP_TXN_ACKED, x -> new ArrayList<>()).add(ms(at - t0));
          }
        }
        synchronized (current) {
          current[0] = null;
        }
        // Clear the key a follower may have taken; a standby lease used up is replaced.
        leader.getKVClient().delete(k).get(5, TimeUnit.SECONDS);
        if (standby(path)) {
          for (int f = 0; f < followers.size(); f++) {
            if (standby.get(f) == 0) {
              standby.set(f, followers.get(f).getLeaseClient().grant(ttlSeconds * 10)
                  .get(5, TimeUnit.SECONDS).getID());
            }
          }
        }
        Thread.sleep(20);
      }
    } finally {
      for (Watch.Watcher w : watchers) {
        w.close();
      }
      for (int f = 0; f < followers.size(); f++) {
        if (standby.get(f) != 0) {
          followers.get(f).getLeaseClient().revoke(standby.get(f));
        }
      }
    }
    return lat;
  }

  private void react(String path, Client fc, ByteSequence k, AtomicLongArray standby, int idx, Trial t,
      long watchAt) {
    if (path.equals(PATH_READ)) {
      fc.getKVClient().get(k).thenRun(() -> t.won.complete(System.nanoTime()));
      return;
    }
    CompletableFuture<Long> lease = standby(path)
        ? CompletableFuture.completedFuture(standby.get(idx))
        : fc.getLeaseClient().grant(ttlSeconds).thenApply(r -> r.getID());
    long[] sentAt = new long[1];
    lease.thenCompose(l -> {
          sentAt[0] = System.nanoTime();
          return fc.getKVClient().txn()
            .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
            .Then(Op.put(k, bs("follower"), PutOption.builder().withLeaseId(l).build()))
            .Else(Op.get(k, GetOption.DEFAULT))
            .commit()
            .thenApply(r -> {
              long now = System.nanoTime();
              boolean standbyPath = standby(path);
              if (r.isSucceeded()) {
                t.watchAt = watchAt;
                t.txnSentAt = sentAt[0];
              }
              if (r.isSucceeded() && standbyPath) {
                // Used up: cleared before the trial ends, so the next trial grants a new one.
                standby.set(idx, 0);
              }
              if (r.isSucceeded()) {
                t.won.complete(now);
              }
              // The winner gives the key back at once (outside the timed part); a loser of
              // the grant path revokes its unused lease, as Leasehold does.
              if (r.isSucceeded() || !standbyPath) {
                fc.getLeaseClient().revoke(l);
              }
              return r;
            });
        });
  }

  /** standby tells whether {@code path} campaigns with a lease granted beforehand. */
  private static boolean standby(String path) {
    return path.equals(PATH_STANDBY) || path.equals(PATH_STANDBY_IDLE);
  }

  private static ByteSequence bs(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}
