package dev.leasehold.spec.sim;

import dev.leasehold.ElectorConfig;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Scenario is one schedule of the simulation: the configuration of N candidates and of the
 * simulated etcd, their clocks, and a timeline of faults, all drawn from one seed.
 *
 * <p>Phases: faults happen in [0, quietAt); from quietAt the network is reliable and fast, etcd
 * has a stable leader, nothing pauses or crashes (liveness is checked from there); at closeAt
 * every live candidate is closed; at endAt the store must hold no lease and no key.
 *
 * <p>Immutable.
 */
final class Scenario {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  /** SWEEP is etcd's lessor check interval for expired leases. */
  static final long SWEEP = 500 * MS;
  /** MIN_TTL_SECONDS is etcd 3.4's minimum TTL with default election timeout (1.5 s, rounded up). */
  static final long MIN_TTL_SECONDS = 2;
  /** ELECTION_TIMEOUT is etcd's election timeout; promoted leases get it on top of their TTL. */
  static final long ELECTION_TIMEOUT = 1 * S;
  /** BASE_DELAY_MAX bounds a one-way message delay when no fault applies. */
  static final long BASE_DELAY_MAX = 2 * MS;
  /** TIMER_LATENCY_MAX bounds how late the event loop runs a due timer, outside faults. */
  static final long TIMER_LATENCY_MAX = 1 * MS;
  /** LIVENESS_ROUND_TRIPS is the number of round trips the liveness bound allows for. */
  static final int LIVENESS_ROUND_TRIPS = 8;

  enum Kind {
    PARTITION, LOSSY, SLOW, LEADER_CHANGE, ISOLATE_LEADER, WATCH_DELAY, WATCH_DROP, WATCH_SILENT,
    COMPACT, CRASH, PAUSE, RESIGN, DRIFT, ADMIN_DELETE, ADMIN_REVOKE, CLOSE,
    /** TRANSFER: candidate {@code slot} calls {@code transferTo} the id of candidate {@code (int) sub}. */
    TRANSFER,
    /** SICK: candidate {@code slot}'s health check answers unhealthy for {@code duration}. */
    SICK
  }

  /** HEALTH_INTERVAL is how often a simulated health check is polled, when the schedule has one. */
  static final Duration HEALTH_INTERVAL = Duration.ofMillis(100);
  /** HEALTH_THRESHOLD is how many answers in a row change a simulated elector's view. */
  static final int HEALTH_THRESHOLD = 2;

  /**
   * DRAWN are the kinds the first generator draws, in its order: a kind added later is drawn by
   * a generator of its own, so that every seed keeps the schedule it had (the seeds named in the
   * tests stay meaningful).
   */
  private static final Kind[] DRAWN = java.util.Arrays.copyOf(Kind.values(), Kind.CLOSE.ordinal() + 1);

  /**
   * Fault is one entry of the timeline. Meaning of the fields by kind: {@code slot} the
   * candidate (-1: all); {@code duration} how long it lasts (CRASH: restart delay, -1 never;
   * ISOLATE_LEADER: isolation); {@code duration2} SLOW and WATCH_DELAY: the extra delay bound,
   * ISOLATE_LEADER: when the majority elects a new leader; {@code x} LOSSY: loss probability,
   * DRIFT: the new rate, WATCH_DROP: below 0.3 the failure says compacted, COMPACT: probability
   * that each live watch is cancelled as compacted; {@code sub} a seed for per-candidate draws.
   */
  record Fault(int index, Kind kind, long at, int slot, long duration, long duration2, double x, long sub) {
    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("#").append(index).append(' ').append(kind)
          .append(" at ").append(Simulation.fmt(at));
      if (slot >= 0) {
        b.append(" c").append(slot);
      }
      switch (kind) {
        case PARTITION, WATCH_SILENT, PAUSE, LEADER_CHANGE -> b.append(" for ").append(Simulation.fmt(duration));
        case LOSSY -> b.append(" for ").append(Simulation.fmt(duration)).append(String.format(" p=%.2f", x));
        case SLOW, WATCH_DELAY -> b.append(" for ").append(Simulation.fmt(duration))
            .append(" extra<=").append(Simulation.fmt(duration2));
        case ISOLATE_LEADER -> b.append(" for ").append(Simulation.fmt(duration))
            .append(", new leader after ").append(Simulation.fmt(duration2));
        case TRANSFER -> b.append(" to slot ").append(sub);
        case SICK -> b.append(" for ").append(Simulation.fmt(duration));
        case CRASH -> b.append(duration < 0 ? " (no restart)" : " restart after " + Simulation.fmt(duration));
        case DRIFT -> b.append(String.format(" rate=%.4f", x));
        case WATCH_DROP -> b.append(x < 0.3 ? " (compacted)" : "");
        case COMPACT -> b.append(String.format(" cancel p=%.2f", x));
        default -> { }
      }
      return b.toString();
    }
  }

  final long seed;
  final Mutation mutation;
  final int n;
  final String[] ids;
  final ElectorConfig[] configs;
  final ProtocolConfig[] protocolConfigs;
  final long ttlGrantedSeconds;
  /** clockDrift bounds the simulated clocks' rate error (= maxDriftRate unless mutated). */
  final double clockDrift;
  final double[] rates;
  final long[] offsets;
  final long[] startAt;
  final long sweepPhase;
  final double spikeP;
  final long spikeMax;
  final double duplicateP;
  final double backgroundWritesPerSecond;
  final long quietAt;
  /** stableFrom is when every call sent before quietAt has resolved (QUIET_STABILITY). */
  final long stableFrom;
  final long closeAt;
  final long endAt;
  final long livenessBound;
  final long cleanupBound;
  final List<Fault> faults;
  /** healthChecks: every candidate polls a health check (true in one standby schedule in three). */
  final boolean healthChecks;

  private Scenario(Scenario base, List<Fault> keep) {
    healthChecks = base.healthChecks;
    seed = base.seed;
    mutation = base.mutation;
    n = base.n;
    ids = base.ids;
    configs = base.configs;
    protocolConfigs = base.protocolConfigs;
    ttlGrantedSeconds = base.ttlGrantedSeconds;
    clockDrift = base.clockDrift;
    rates = base.rates;
    offsets = base.offsets;
    startAt = base.startAt;
    sweepPhase = base.sweepPhase;
    spikeP = base.spikeP;
    spikeMax = base.spikeMax;
    duplicateP = base.duplicateP;
    backgroundWritesPerSecond = base.backgroundWritesPerSecond;
    quietAt = base.quietAt;
    stableFrom = base.stableFrom;
    closeAt = base.closeAt;
    endAt = base.endAt;
    livenessBound = base.livenessBound;
    cleanupBound = base.cleanupBound;
    faults = List.copyOf(keep);
  }

  /** withFaults keeps only the faults whose index is set (for minimizing a failing schedule). */
  Scenario withFaults(BitSet keep) {
    List<Fault> kept = new ArrayList<>();
    for (Fault f : faults) {
      if (keep.get(f.index())) {
        kept.add(f);
      }
    }
    return new Scenario(this, kept);
  }

  /** runSeed is the seed of the run-time randomness (message fates, jitter); fixed per scenario. */
  long runSeed() {
    return new SplittableRandom(seed ^ 0x5DEECE66DL).nextLong();
  }

  private static <T> T pick(SplittableRandom r, List<T> xs) {
    return xs.get(r.nextInt(xs.size()));
  }

  Scenario(long seed, Mutation mutation) {
    this.seed = seed;
    this.mutation = mutation;
    SplittableRandom r = new SplittableRandom(seed);
    n = 2 + r.nextInt(4);
    long ttl = pick(r, List.of(1L, 2L, 2L, 3L, 5L));
    ttlGrantedSeconds = Math.max(ttl, MIN_TTL_SECONDS);
    // rpcTimeout must stay under TTL/3 (ElectorConfig validates it): the largest allowed
    // value and a smaller one, so hung renewals near the bound stay covered.
    long thirdMillis = ttl * 1000 / 3 - 1;
    Duration rpcTimeout = pick(r, List.of(
        Duration.ofMillis(Math.min(500, thirdMillis)), Duration.ofMillis(Math.min(1000, thirdMillis))));
    double rho = pick(r, List.of(0.0, 0.01, 0.01, 0.05, 0.099));
    Duration margin = r.nextInt(10) < 7 ? null
        : pick(r, List.of(Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(50)));
    Duration poll = pick(r, List.of(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofSeconds(1), Duration.ofSeconds(2)));
    Duration backoffInitial = pick(r, List.of(Duration.ofMillis(50), Duration.ofMillis(100)));
    Duration backoffMax = pick(r, List.of(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2)));
    int h = r.nextInt(10);
    Duration holdoff = h < 6 ? null : h < 8 ? Duration.ZERO : Duration.ofSeconds(2 * ttl);
    boolean sameId = r.nextInt(5) == 0;
    boolean standby = r.nextInt(4) != 0;
    if (mutation == Mutation.NO_DRIFT_ALLOWANCE_NO_MARGIN) {
      rho = 0.0;
      margin = Duration.ZERO;
      clockDrift = 0.05;
    } else {
      clockDrift = rho;
    }
    // Generators of their own, so every seed keeps its schedule.
    healthChecks = standby && new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL).nextInt(3) == 0;
    // One standby schedule in three gives its candidates priorities (some equal), and then one in
    // two lets a leader of a lower priority yield to a queued higher one after 1-3 s (§4.5).
    SplittableRandom placement = new SplittableRandom(seed ^ 0x1D2545F4914F6CDDL);
    boolean ranked = standby && placement.nextInt(3) == 0;
    Duration preempt = ranked && placement.nextBoolean() ? Duration.ofMillis(1000 + placement.nextInt(2001)) : null;
    ids = new String[n];
    configs = new ElectorConfig[n];
    protocolConfigs = new ProtocolConfig[n];
    for (int i = 0; i < n; i++) {
      ids[i] = sameId && i == 1 ? "c0" : "c" + i;
      ElectorConfig.Builder b = ElectorConfig.builder()
          .electionKey("/leasehold/sim")
          .candidateId(ids[i])
          .leaseTtl(Duration.ofSeconds(ttl))
          .maxDriftRate(rho)
          .pollInterval(poll)
          .rpcTimeout(rpcTimeout)
          .retryBackoff(backoffInitial, backoffMax)
          .standbyLease(standby);
      if (margin != null) {
        b.safetyMargin(margin);
      }
      if (holdoff != null) {
        b.resignHoldoff(holdoff);
      }
      if (ranked) {
        b.priority(pick(placement, List.of(-1, 0, 0, 1, 2)));
        b.preemptAfter(preempt);
      }
      if (healthChecks) {
        // The simulated process answers the check (Proc.sick); this one only switches it on.
        b.healthCheck(() -> true).healthCheckInterval(HEALTH_INTERVAL).healthCheckThreshold(HEALTH_THRESHOLD);
      }
      configs[i] = b.build();
      protocolConfigs[i] = ProtocolConfig.from(configs[i]);
    }
    rates = new double[n];
    offsets = new long[n];
    startAt = new long[n];
    for (int i = 0; i < n; i++) {
      rates[i] = drawRate(r);
      offsets[i] = r.nextLong(-1_000_000_000_000_000L, 1_000_000_000_000_000L);
      startAt[i] = r.nextLong(1 * S);
    }
    sweepPhase = r.nextLong(SWEEP);
    spikeP = pick(r, List.of(0.0, 0.001, 0.01, 0.05));
    spikeMax = rpcTimeout.toNanos() * 3 / 2;
    duplicateP = pick(r, List.of(0.0, 0.0, 0.01, 0.05));
    backgroundWritesPerSecond = pick(r, List.of(0.0, 0.5, 5.0));
    quietAt = 3 * S + r.nextLong(27 * S);

    ProtocolConfig pc = protocolConfigs[0];
    long rpc = rpcTimeout.toNanos();
    double slow = 1 - clockDrift;
    // Liveness bound, from the moment faults stop (or the last believing MASTER's belief ends):
    //  - the key is free: a lease nobody renews expires TTL after its last renewal, or TTL +
    //    election timeout after the last etcd leader change (both before quietAt); the sweep
    //    deletes it within 500 ms. A resigned candidate sits out at most its hold-off.
    //  - a follower looks again: its next poll is at most max(pollInterval, backoffMax) away (local
    //    time), after a call that was in flight at quietAt resolved (at most rpcTimeout), and a
    //    pending lease probe ends within the probe timeout;
    //  - then a bounded number of round trips: revoke, poll, grant, compare-and-swap (+ slack).
    long keyFree = Math.max(
        ttlGrantedSeconds * S + ELECTION_TIMEOUT + SWEEP,
        (long) (configs[0].resignHoldoff().toNanos() / slow));
    long look = (long) (Math.max(pc.pollIntervalNanos(), pc.backoffMaxNanos()) / slow);
    long roundTrip = 2 * (50_000 + BASE_DELAY_MAX) + 2 * TIMER_LATENCY_MAX;
    livenessBound = keyFree + look + (long) (rpc / slow) + (long) (pc.probeTimeoutNanos() / slow)
        + LIVENESS_ROUND_TRIPS * roundTrip;
    stableFrom = quietAt + (long) (rpc / slow) + 2 * TIMER_LATENCY_MAX;
    closeAt = quietAt + livenessBound + 500 * MS + r.nextLong(ttlGrantedSeconds * S);
    // After close: a grant in flight at close may still be applied (its reply then reaches a
    // shut-down elector and nobody revokes it), so the last lease expires within rpcTimeout +
    // TTL and is swept within 500 ms.
    cleanupBound = (long) (rpc / slow) + ttlGrantedSeconds * S + SWEEP + 20 * MS;
    endAt = closeAt + cleanupBound + 1;
    faults = drawFaults(r, rpc);
  }

  private double drawRate(SplittableRandom r) {
    if (mutation == Mutation.NO_DRIFT_ALLOWANCE_NO_MARGIN) {
      int k = r.nextInt(10);
      return k < 5 ? 1 - clockDrift : 1 - clockDrift * r.nextDouble();
    }
    int k = r.nextInt(10);
    if (k < 3) {
      return 1 - clockDrift;
    }
    if (k < 5) {
      return 1 + clockDrift;
    }
    return 1 - clockDrift + 2 * clockDrift * r.nextDouble();
  }

  private List<Fault> drawFaults(SplittableRandom r, long rpc) {
    List<Fault> out = new ArrayList<>();
    double rate = pick(r, List.of(0.0, 0.1, 0.3, 0.8, 2.0)); // faults per second of the fault phase
    Kind[] kinds = DRAWN;
    boolean[] enabled = new boolean[kinds.length];
    boolean any = false;
    for (int i = 0; i < kinds.length; i++) {
      enabled[i] = r.nextInt(10) < 6;
      any |= enabled[i];
    }
    if (!any) {
      enabled[Kind.PARTITION.ordinal()] = true;
    }
    long ttlN = ttlGrantedSeconds * S;
    // Store-level faults (leader changes, isolations) do not overlap each other.
    if (enabled[Kind.LEADER_CHANGE.ordinal()] || enabled[Kind.ISOLATE_LEADER.ordinal()]) {
      long t = r.nextLong(Math.max(1, (long) (quietAt * Math.min(1.0, 1.5 / Math.max(rate, 0.05) / 10))));
      while (true) {
        boolean iso = enabled[Kind.ISOLATE_LEADER.ordinal()]
            && (!enabled[Kind.LEADER_CHANGE.ordinal()] || r.nextBoolean());
        if (iso) {
          long e = ELECTION_TIMEOUT + r.nextLong(500 * MS);
          long d = e + (r.nextInt(3) == 0 ? r.nextLong(200 * MS) : r.nextLong(2 * (ttlN + ELECTION_TIMEOUT) + 1 * S));
          if (t + d >= quietAt) {
            break;
          }
          out.add(new Fault(0, Kind.ISOLATE_LEADER, t, -1, d, e, 0, r.nextLong()));
          t += d;
        } else {
          long u = r.nextLong(2 * S);
          if (t + u >= quietAt) {
            break;
          }
          out.add(new Fault(0, Kind.LEADER_CHANGE, t, -1, u, 0, 0, r.nextLong()));
          t += u;
        }
        if (rate == 0) {
          break;
        }
        t += (long) (r.nextDouble() * 2 / rate * S);
      }
    }
    int count = (int) Math.round(rate * quietAt / (double) S * (0.5 + r.nextDouble()));
    for (int i = 0; i < count; i++) {
      Kind k = kinds[r.nextInt(kinds.length)];
      if (!enabled[k.ordinal()] || k == Kind.LEADER_CHANGE || k == Kind.ISOLATE_LEADER) {
        continue;
      }
      long at = r.nextLong(quietAt);
      long room = quietAt - at;
      int slot = r.nextInt(n);
      switch (k) {
        case PARTITION -> out.add(new Fault(0, k, at, slot, Math.min(room, r.nextLong(3 * ttlN)), 0, 0, r.nextLong()));
        case LOSSY -> out.add(new Fault(0, k, at, -1, Math.min(room, r.nextLong(2 * ttlN)), 0,
            0.05 + 0.6 * r.nextDouble(), 0));
        case SLOW -> out.add(new Fault(0, k, at, r.nextInt(3) == 0 ? -1 : slot, Math.min(room, r.nextLong(2 * ttlN)),
            10 * MS + r.nextLong(2 * rpc), 0, 0));
        case WATCH_DELAY -> out.add(new Fault(0, k, at, slot, Math.min(room, r.nextLong(3 * ttlN)),
            100 * MS + r.nextLong(5 * S), 0, 0));
        case WATCH_DROP -> out.add(new Fault(0, k, at, slot, 0, 0, r.nextDouble(), 0));
        case WATCH_SILENT -> out.add(new Fault(0, k, at, slot, Math.min(room, r.nextLong(3 * ttlN)), 0, 0, 0));
        case COMPACT -> out.add(new Fault(0, k, at, -1, 0, 0, r.nextDouble(), r.nextLong()));
        case CRASH -> {
          long restart = r.nextLong(2 * ttlN);
          if (slot == 0 || r.nextInt(3) > 0) {
            if (at + restart >= quietAt) {
              restart = room / 2;
            }
          } else {
            restart = -1;
          }
          out.add(new Fault(0, k, at, slot, restart, 0, 0, 0));
        }
        case PAUSE -> {
          long d = r.nextInt(4) == 0 ? r.nextLong(3 * ttlN) : r.nextLong(300 * MS);
          out.add(new Fault(0, k, at, slot, Math.min(room, d), 0, 0, 0));
        }
        case RESIGN, ADMIN_DELETE, ADMIN_REVOKE -> out.add(new Fault(0, k, at, k == Kind.RESIGN ? slot : -1, 0, 0, 0, 0));
        case DRIFT -> out.add(new Fault(0, k, at, slot, 0, 0, drawRate(r), 0));
        case CLOSE -> {
          if (slot != 0) {
            out.add(new Fault(0, k, at, slot, 0, 0, 0, 0));
          }
        }
        default -> throw new IllegalStateException(k.toString());
      }
    }
    drawTransfers(out);
    drawSickness(out);
    out.sort(Comparator.comparingLong(Fault::at));
    List<Fault> numbered = new ArrayList<>();
    for (Fault f : out) {
      numbered.add(new Fault(numbered.size(), f.kind(), f.at(), f.slot(), f.duration(), f.duration2(), f.x(), f.sub()));
    }
    return Collections.unmodifiableList(numbered);
  }

  /**
   * drawTransfers adds, with standby leases (a transfer needs the queue), up to three calls of
   * {@code transferTo} in the fault phase, from a generator of their own: from a random
   * candidate (it may not lead then, and is refused) to another, or to itself, or to an id
   * nobody has (refused, the term kept).
   */
  private void drawTransfers(List<Fault> out) {
    if (!configs[0].standbyLease()) {
      return;
    }
    SplittableRandom t = new SplittableRandom(seed ^ 0x7F4A7C15E3779B97L);
    int count = t.nextInt(4);
    for (int i = 0; i < count; i++) {
      int from = t.nextInt(n);
      // n names a candidate nobody is.
      int to = t.nextInt(10) == 0 ? n : t.nextInt(n);
      out.add(new Fault(0, Kind.TRANSFER, t.nextLong(quietAt), from, 0, 0, 0, to));
    }
  }

  /**
   * drawSickness adds, when the schedule has health checks, up to three spells of a candidate's
   * check answering unhealthy, from a generator of their own: most shorter than the threshold
   * (a flap that must move nothing), some long enough to make it yield; every spell ends, and
   * its view turns healthy again, well before quietAt.
   */
  private void drawSickness(List<Fault> out) {
    if (!healthChecks) {
      return;
    }
    SplittableRandom h = new SplittableRandom(seed ^ 0x4F6CDD1D2545F491L);
    long flip = HEALTH_THRESHOLD * HEALTH_INTERVAL.toNanos();
    long last = quietAt - 2 * flip - 2 * HEALTH_INTERVAL.toNanos();
    int count = h.nextInt(4);
    for (int i = 0; i < count && last > 0; i++) {
      long at = h.nextLong(last);
      long d = h.nextInt(2) == 0 ? h.nextLong(flip) : flip + h.nextLong(4 * S);
      out.add(new Fault(0, Kind.SICK, at, h.nextInt(n), Math.min(d, last - at), 0, 0, 0));
    }
  }

  /** targetId is the candidate id a TRANSFER names: a candidate's, or one nobody has. */
  String targetId(Fault f) {
    return f.sub() < n ? ids[(int) f.sub()] : "nobody";
  }

  String describe() {
    ElectorConfig c = configs[0];
    StringBuilder b = new StringBuilder();
    b.append("seed=").append(seed).append(" mutation=").append(mutation).append(" n=").append(n)
        .append(" ids=").append(String.join(",", ids))
        .append(" ttl=").append(c.leaseTtl().toSeconds()).append("s(granted ").append(ttlGrantedSeconds).append("s)")
        .append(" margin=").append(c.safetyMargin().toMillis()).append("ms")
        .append(" rho=").append(c.maxDriftRate())
        .append(" clockDrift=").append(clockDrift)
        .append(" poll=").append(c.pollInterval().toMillis()).append("ms")
        .append(" rpcTimeout=").append(c.rpcTimeout().toMillis()).append("ms")
        .append(" backoff=").append(c.retryBackoffInitial().toMillis()).append("..")
        .append(c.retryBackoffMax().toMillis()).append("ms")
        .append(" holdoff=").append(c.resignHoldoff().toMillis()).append("ms")
        .append(" standbyLease=").append(c.standbyLease())
        .append(String.format(" spikeP=%.3f duplicateP=%.2f", spikeP, duplicateP))
        .append(" quietAt=").append(Simulation.fmt(quietAt))
        .append(" livenessBound=").append(Simulation.fmt(livenessBound))
        .append(" closeAt=").append(Simulation.fmt(closeAt))
        .append(" endAt=").append(Simulation.fmt(endAt));
    b.append("\n  rates=");
    for (double rate : rates) {
      b.append(String.format("%.4f ", rate));
    }
    b.append("\n  faults (").append(faults.size()).append("):");
    for (Fault f : faults) {
      b.append("\n    ").append(f);
    }
    return b.toString();
  }
}
