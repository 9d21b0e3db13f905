package dev.leasehold.spec.sim.session;

import dev.leasehold.ElectorConfig;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.protocol.ProtocolConfig;
import dev.leasehold.etcd.protocol.SessionElection;
import dev.leasehold.etcd.protocol.SessionLease;
import dev.leasehold.runtime.ElectorRuntime;
import dev.leasehold.runtime.SharedThreads;
import dev.leasehold.test.engine.SimClock;
import dev.leasehold.test.engine.SimScheduler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.slf4j.LoggerFactory;

/**
 * SessionProc is one incarnation of a process with one session, wired as {@code EtcdSession}
 * wires it: core's real {@link SessionLease} in an {@link ElectorRuntime} on the lease's loop,
 * and one real {@link SessionElection} per key in runtimes that share the elections' loop and
 * its dispatcher (the lease's runtime uses that dispatcher too), all on {@link SimScheduler}s
 * that read one drifting clock, and a {@link SimHub} for their client. A restart after a crash
 * is a new SessionProc.
 *
 * <p>Not thread-safe: the simulation's one thread uses it.
 */
final class SessionProc {
  final int slot;
  final String name;
  final String id;
  final SimClock clock;
  final SimScheduler leaseLoop;
  final SimScheduler electionsLoop;
  final SimHub hub;
  final ElectorRuntime lease;
  final Map<String, ElectorRuntime> elections = new LinkedHashMap<>();
  private final SessionSim sim;
  private final ElectorConfig template;
  private final ProtocolConfig protocol;
  private final SplittableRandom random;
  boolean paused;
  boolean crashed;
  boolean closeRequested;
  long closedAt = -1;

  SessionProc(SessionSim sim, int slot, String name, ElectorConfig template, List<String> keys, long seed,
      SimClock clock) {
    this.slot = slot;
    this.name = name;
    this.id = template.candidateId();
    this.clock = clock;
    this.leaseLoop = new SimScheduler(sim, clock);
    this.electionsLoop = new SimScheduler(sim, clock);
    ProtocolConfig protocol = ProtocolConfig.from(template);
    SplittableRandom random = new SplittableRandom(seed);
    this.hub = new SimHub(sim, this, template.electionKey(), new SharedThreads(leaseLoop, electionsLoop),
        electionsLoop::execute, template.rpcTimeout().toNanos(), template.retryBackoffInitial().toNanos(),
        sim.sc.spread ? 1 : 0);
    this.lease = new ElectorRuntime(template, new SessionLease(protocol, random.split()), hub,
        new SharedThreads(leaseLoop, electionsLoop), name + "*");
    this.sim = sim;
    this.template = template;
    this.protocol = protocol;
    this.random = random;
    for (String key : keys) {
      elections.put(key, election(key));
    }
  }

  private ElectorRuntime election(String key) {
    ElectorConfig c = ElectorConfig.builder().config(template).electionKey(key).build();
    ElectorRuntime r = new ElectorRuntime(c, new SessionElection(protocol, random.split()),
        new SimElectionPort(hub, key), new SharedThreads(electionsLoop, electionsLoop), name + "@" + key,
        LoggerFactory.getLogger("dev.leasehold.etcd.EtcdSession.elections"));
    r.onLeadershipChanged((LeadershipEvent e) -> sim.checks.published(this, key, e));
    return r;
  }

  /**
   * reopen closes the election of {@code key} as a user would (a MASTER's close deletes its key,
   * fenced; a failed delete is left to the session) and, {@code after} later, opens a new one
   * of that name on the same session and starts it.
   */
  void reopen(String key, long after) {
    ElectorRuntime old = elections.get(key);
    old.closeAsync().whenComplete((v, e) -> sim.at(sim.now + after, () -> {
      if (!crashed && !closeRequested && elections.get(key) == old) {
        ElectorRuntime r = election(key);
        elections.put(key, r);
        r.start();
      }
    }));
  }

  /** start starts every election and then the session, as a user would. */
  void start() {
    elections.values().forEach(ElectorRuntime::start);
    lease.start();
  }

  /**
   * closeAsync closes as {@code EtcdSession.close()} does: the lease first (every election told
   * Ended(CLOSED), the lease revoked), then every election on its loop; then the threads stop.
   */
  void closeAsync(SessionSim sim) {
    closeRequested = true;
    lease.closeAsync().whenComplete((v, e) -> {
      electionsLoop.execute(() -> elections.values().forEach(ElectorRuntime::closeAsync));
      List<CompletableFuture<Void>> all = new ArrayList<>();
      elections.values().forEach(r -> all.add(r.whenClosed().toCompletableFuture()));
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((x, y) -> {
        leaseLoop.shutdown();
        electionsLoop.shutdown();
        closedAt = sim.now;
        sim.note(name + " closed");
      });
    });
  }

  /** crash abandons the process: its threads and its client stop dead. */
  void crash() {
    crashed = true;
    leaseLoop.abandon();
    electionsLoop.abandon();
    hub.abandon();
  }

  void pause() {
    paused = true;
    leaseLoop.pause();
    electionsLoop.pause();
  }

  void resume() {
    paused = false;
    leaseLoop.resume();
    electionsLoop.resume();
  }

  @Override
  public String toString() {
    return name;
  }
}
