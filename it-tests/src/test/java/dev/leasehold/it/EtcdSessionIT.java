package dev.leasehold.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdSession;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many elections on one lease (PROTOCOL.md §11) against a real one-member etcd. */
class EtcdSessionIT {
  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(1);
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final int N = 20;

  private Client outside;
  private String prefix;
  private final List<EtcdSession> sessions = new ArrayList<>();
  private final Map<LeaderElector, List<LeadershipEvent>> events = new HashMap<>();

  @BeforeEach
  void setUp(TestInfo info) {
    outside = Client.builder().endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new)).build();
    prefix = "/it/sessions/" + info.getTestMethod().orElseThrow().getName() + "/";
  }

  @AfterEach
  void tearDown() {
    sessions.forEach(EtcdSession::close);
    outside.close();
  }

  private EtcdSession session(String id) {
    EtcdSession s = EtcdSession.builder()
        .endpoints(ETCD.cluster().clientEndpoints().toArray(String[]::new))
        .prefix(prefix).candidateId(id).leaseTtl(TTL).build();
    sessions.add(s);
    return s;
  }

  private List<LeaderElector> elections(EtcdSession s) {
    List<LeaderElector> out = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      LeaderElector e = s.election("shard-" + i);
      List<LeadershipEvent> log = new CopyOnWriteArrayList<>();
      e.onLeadershipChanged(log::add);
      events.put(e, log);
      e.start();
      out.add(e);
    }
    return out;
  }

  /** aLeadsAllThenBFollows starts a until it leads every election, then b until it follows each. */
  private List<LeaderElector> aLeadsAllThenBFollows(EtcdSession a, List<LeaderElector> ea, EtcdSession b) {
    a.start();
    await().atMost(WAIT).until(() -> ea.stream().allMatch(LeaderElector::isLeader));
    List<LeaderElector> eb = elections(b);
    b.start();
    await().atMost(WAIT).until(() -> eb.stream().allMatch(e -> e.currentLeader().isPresent()));
    return eb;
  }

  private Map<String, KeyValue> keys() throws Exception {
    ByteSequence p = ByteSequence.from(prefix, StandardCharsets.UTF_8);
    return outside.getKVClient().get(p, GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS)
        .getKvs().stream().collect(Collectors.toMap(kv -> kv.getKey().toString(StandardCharsets.UTF_8), kv -> kv));
  }

  private static long leaders(List<LeaderElector> a, List<LeaderElector> b, int i) {
    return (a.get(i).isLeader() ? 1 : 0) + (b.get(i).isLeader() ? 1 : 0);
  }

  private static List<Cause> causes(List<LeadershipEvent> log) {
    return log.stream().map(LeadershipEvent::cause).toList();
  }

  @Test
  void everyElectionHasOneLeaderAndEachSessionOneLeaseForAllItsKeys() throws Exception {
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    List<LeaderElector> ea = elections(a);
    List<LeaderElector> eb = aLeadsAllThenBFollows(a, ea, b);
    Map<String, KeyValue> keys = keys();
    assertEquals(N, keys.size());
    Set<Long> leases = keys.values().stream().map(KeyValue::getLease).collect(Collectors.toSet());
    assertEquals(1, leases.size(), "every key of session a on one lease");
    long lease = leases.iterator().next();
    for (int i = 0; i < N; i++) {
      Leadership term = ea.get(i).leadership().orElseThrow();
      KeyValue kv = keys.get(prefix + "shard-" + i);
      assertEquals(kv.getModRevision(), term.fencingToken());
      assertEquals(lease, term.leaseId());
      assertEquals(1, leaders(ea, eb, i));
      assertEquals("a", eb.get(i).currentLeader().orElseThrow().candidateId());
    }
    assertEquals(2, ETCD.cluster().leaseIds().size());
  }

  @Test
  void oneElectionsResignHandsOnlyItsKeyOverAndLeavesItsSiblingsAlone() throws Exception {
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    List<LeaderElector> ea = elections(a);
    List<LeaderElector> eb = aLeadsAllThenBFollows(a, ea, b);
    Map<String, KeyValue> before = keys();
    long token = ea.get(3).leadership().orElseThrow().fencingToken();
    ea.get(3).resign();
    await().atMost(WAIT).until(() -> eb.get(3).isLeader());
    assertFalse(ea.get(3).isLeader());
    assertTrue(eb.get(3).leadership().orElseThrow().fencingToken() > token);
    Map<String, KeyValue> after = keys();
    for (int i = 0; i < N; i++) {
      if (i == 3) {
        continue;
      }
      String k = prefix + "shard-" + i;
      assertEquals(before.get(k).getModRevision(), after.get(k).getModRevision(), k);
      assertTrue(ea.get(i).isLeader(), k);
      assertEquals(List.of(Cause.SUBSCRIBED, Cause.ELECTED), causes(events.get(ea.get(i))), k);
    }
    // Resigned, then told of its successor.
    assertEquals(List.of(Cause.SUBSCRIBED, Cause.ELECTED, Cause.RESIGNED, Cause.LEADER_CHANGED),
        causes(events.get(ea.get(3))));
    assertEquals("b", ea.get(3).currentLeader().orElseThrow().candidateId());
    assertTrue(a.isLive());
  }

  @Test
  void theSessionsLossEndsEveryTermOnItAndTheOtherSessionTakesThemAll() throws Exception {
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    List<LeaderElector> ea = elections(a);
    List<LeaderElector> eb = aLeadsAllThenBFollows(a, ea, b);
    long lease = ea.get(0).leadership().orElseThrow().leaseId();
    outside.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> eb.stream().allMatch(LeaderElector::isLeader));
    for (LeaderElector e : ea) {
      assertFalse(e.isLeader());
      List<Cause> c = causes(events.get(e));
      // One loss each (the watch may show the key deleted before the keep-alive finds the
      // lease gone), then the new leader.
      assertEquals(Cause.ELECTED, c.get(1), c.toString());
      assertTrue(Set.of(Cause.LEASE_REVOKED, Cause.KEY_DELETED).contains(c.get(2)), c.toString());
      assertEquals(1, c.stream().filter(Cause::isLoss).count(), c.toString());
    }
    // Session a granted a new lease and is a candidate again on it.
    await().atMost(WAIT).until(a::isLive);
    await().atMost(WAIT).until(() -> !ETCD.cluster().leaseIds().contains(lease));
  }

  @Test
  void closingASessionRevokesItsLeaseOnlyOnceNoneOfItsElectionsSaysItLeads() throws Exception {
    // The lease's close tells every election Ended(CLOSED) on their loop; a revoke sent before
    // the last of them took it would let b lead a key that a still says it leads.
    int n = 200;
    EtcdSession a = session("a");
    EtcdSession b = session("b");
    List<LeaderElector> ea = new ArrayList<>();
    List<LeaderElector> eb = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ea.add(a.election("close-" + i));
      ea.get(i).start();
    }
    a.start();
    await().atMost(WAIT).until(() -> ea.stream().allMatch(LeaderElector::isLeader));
    for (int i = 0; i < n; i++) {
      eb.add(b.election("close-" + i));
      eb.get(i).start();
    }
    b.start();
    await().atMost(WAIT).until(() -> eb.stream().allMatch(e -> e.currentLeader().isPresent()));
    AtomicReference<String> overlap = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread sampler = new Thread(() -> {
      while (!stop.get()) {
        for (int i = n - 1; i >= 0; i--) {
          if (eb.get(i).isLeader() && ea.get(i).isLeader()) {
            overlap.compareAndSet(null, "close-" + i);
          }
        }
      }
    }, "overlap-sampler");
    sampler.start();
    // Thousands of elections joining keep a's elections' loop busy as the close begins.
    for (int i = 0; i < 3000; i++) {
      a.election("filler-" + i).start();
    }
    a.close();
    await().atMost(WAIT).until(() -> eb.stream().allMatch(LeaderElector::isLeader));
    stop.set(true);
    sampler.join();
    assertNull(overlap.get(), () -> "a and b both said they lead " + overlap.get());
  }

  @Test
  void closingOneElectionDeletesOnlyItsKeyAndClosingTheSessionLeavesNothingBehind() throws Exception {
    EtcdSession a = session("a");
    List<LeaderElector> ea = elections(a);
    a.start();
    await().atMost(WAIT).until(() -> ea.stream().allMatch(LeaderElector::isLeader));
    ea.get(5).close();
    assertEquals(ElectorState.STOPPED, ea.get(5).state());
    await().atMost(WAIT).until(() -> keys().size() == N - 1);
    assertFalse(keys().containsKey(prefix + "shard-5"));
    assertTrue(ea.get(6).isLeader());
    assertEquals(N - 1, a.elections());
    // The name is free again once closed.
    a.election("shard-5").close();
    assertThrows(IllegalArgumentException.class, () -> a.election("shard-6"));
    a.close();
    for (LeaderElector e : ea) {
      assertEquals(ElectorState.STOPPED, e.state());
      assertEquals(Cause.CLOSED, events.get(e).get(events.get(e).size() - 1).cause());
      assertEquals(1, causes(events.get(e)).stream().filter(c -> c == Cause.CLOSED).count());
    }
    assertEquals(0, keys().size());
    assertEquals(0, ETCD.cluster().leaseIds().size());
  }

  @Test
  void aWatchWithNothingToDeliverKeepsUpByProgressNotificationsAlone() throws Exception {
    try (LogCapture hub = new LogCapture("dev.leasehold.etcd.SessionHub")) {
      EtcdSession a = session("a");
      a.election("x").start();
      AtomicInteger renewals = new AtomicInteger();
      a.onRenewal(r -> renewals.incrementAndGet());
      a.start();
      // Writes outside the prefix move etcd's revision past every renewal's read; the watch
      // sees no event, so only the progress it asks for shows it caught up.
      ByteSequence other = ByteSequence.from("/it/sessions-other", StandardCharsets.UTF_8);
      await().atMost(WAIT).until(() -> {
        outside.getKVClient().put(other, ByteSequence.from("v" + renewals.get(), StandardCharsets.UTF_8))
            .get(5, TimeUnit.SECONDS);
        return renewals.get() >= 8;
      });
      assertFalse(hub.anyContains("restarted"), "the watch was taken for silent");
    }
  }

  @Test
  void threadsDoNotGrowWithElections() throws Exception {
    // The ITs share one JVM: threads other tests left running are not this session's.
    Set<String> others = threadNames();
    EtcdSession a = session("a");
    a.start();
    startMany(a, 0, 100);
    Set<String> before = threadNames();
    startMany(a, 100, 600);
    Set<String> after = threadNames();
    Set<String> added = new TreeSet<>(after);
    added.removeAll(before);
    Set<String> sessions = new TreeSet<>(after);
    sessions.removeAll(others);
    sessions.removeIf(t -> !t.startsWith("leasehold-"));
    String seen = before.size() + " threads at 100 elections, " + after.size() + " at 600; new: " + added
        + "; the session's: " + sessions;
    // The lease's loop, the elections' loop, the client's two, and the dispatcher once an event
    // needs it.
    assertTrue(sessions.size() <= 5, seen);
    // What the session and its client own does not grow at all. The JVM's count may still move by
    // a helper that comes and goes on its own clock (netty's globalEventExecutor, the JDK
    // HttpClient's workers of the cluster's health probes); 500 more elections growing the count
    // would be far above that slack.
    assertTrue(owned(after) <= owned(before), seen);
    assertTrue(after.size() <= before.size() + 3, seen);
  }

  private static long owned(Set<String> threads) {
    return threads.stream()
        .filter(t -> t.startsWith("leasehold-") || t.startsWith("vert.x-") || t.startsWith("jetcd-"))
        .count();
  }

  private void startMany(EtcdSession s, int from, int to) {
    for (int i = from; i < to; i++) {
      s.election("many-" + i).start();
    }
    await().atMost(WAIT).until(() -> keys().size() == to);
  }

  private static Set<String> threadNames() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
        .collect(Collectors.toSet());
  }

  @Test
  void etcdGoneIsEachElectionsStoreUnavailableWithItsReasonAndItsReturnTheirRecovery() throws Exception {
    try (LogCapture elections = new LogCapture("dev.leasehold.etcd.EtcdSession.elections");
        LogCapture runtime = new LogCapture()) {
      outageAndRecovery();
      String shard0 = "a@" + prefix + "shard-0";
      assertTrue(elections.has(shard0, "store unavailable"), "under the session's elections logger: "
          + elections.lines(shard0));
      assertEquals(List.of(), runtime.lines(shard0), "nothing under the runtime's own logger");
    }
  }

  private void outageAndRecovery() throws Exception {
    EtcdSession a = session("a");
    List<LeaderElector> ea = elections(a);
    a.start();
    await().atMost(WAIT).until(() -> ea.stream().allMatch(LeaderElector::isLeader));
    EtcdMember member = ETCD.cluster().member(0);
    member.stop();
    try {
      await().atMost(WAIT).until(() -> ea.stream().allMatch(e -> has(e, Cause.STORE_UNAVAILABLE)));
      for (LeaderElector e : ea) {
        LeadershipEvent outage = events.get(e).stream().filter(ev -> ev.cause() == Cause.STORE_UNAVAILABLE)
            .findFirst().orElseThrow();
        assertFalse(outage.reason().orElse("").isBlank(), "the outage names its reason: " + outage);
        assertFalse(e.health().storeReachable(), "health shows it: " + e.health());
        assertEquals(outage.reason(), e.health().storeFailure());
      }
      await().atMost(WAIT).until(() -> ea.stream().noneMatch(LeaderElector::isLeader));
    } finally {
      member.start();
    }
    await().atMost(WAIT).until(() -> ea.stream().allMatch(e -> has(e, Cause.STORE_RECOVERED) && e.isLeader()));
    for (LeaderElector e : ea) {
      List<Cause> c = causes(events.get(e));
      assertEquals(1, c.stream().filter(Cause.STORE_UNAVAILABLE::equals).count(), "one report per outage: " + c);
      assertTrue(c.indexOf(Cause.STORE_UNAVAILABLE) < c.indexOf(Cause.STORE_RECOVERED), c.toString());
      assertTrue(e.health().healthy(), e.health().toString());
    }
  }

  private boolean has(LeaderElector e, Cause cause) {
    return events.get(e).stream().anyMatch(ev -> ev.cause() == cause);
  }
}
