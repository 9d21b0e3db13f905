package dev.leasehold.etcd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.Renewal;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.runtime.Input;
import dev.leasehold.it.EtcdClusterExtension;
import dev.leasehold.it.EtcdMember;
import dev.leasehold.it.chaos.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the elector's own jetcd client does with its calls ({@link EtcdCallPolicy}, {@link Hedge}),
 * on real etcd. A hung member (its connection open, every byte to it dropped: {@link
 * TcpProxy.Mode#BLACKHOLE}) costs an elector's calls their deadline and its renewals a hedge
 * delay: gRPC itself ends a call at the rpc timeout (jetcd alone never would), and a renewal's
 * call unanswered after the hedge delay is sent again, round-robin, to another member. A
 * keep-alive costs etcd one message, where jetcd's {@code keepAliveOnce} alone sends two.
 */
class EtcdClientCallsIT {
  private static final Logger log = LoggerFactory.getLogger(EtcdClientCallsIT.class);
  private static final ByteSequence KEY = ByteSequence.from("/hung/probe", StandardCharsets.UTF_8);

  @RegisterExtension static final EtcdClusterExtension ETCD = EtcdClusterExtension.members(3);

  private final List<TcpProxy> proxies = new ArrayList<>();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    for (TcpProxy p : proxies) {
      p.close();
    }
  }

  private List<String> proxied() throws Exception {
    List<String> urls = new ArrayList<>();
    for (EtcdMember m : ETCD.cluster().members()) {
      TcpProxy p = TcpProxy.start("client-" + m.name(), m.clientPort());
      proxies.add(p);
      urls.add("http://127.0.0.1:" + p.port());
    }
    return urls;
  }

  @Test
  void aCallToAHungMemberEndsAtItsDeadlineWhereJetcdAloneLeavesItOpen() throws Exception {
    String url = proxied().get(0);
    Duration rpcTimeout = Duration.ofMillis(300);
    Client ours = new EtcdClientFactory(List.of(url), null, null, null, null, null, rpcTimeout).get();
    closing.add(ours);
    Client plain = Client.builder().endpoints(url).build();
    closing.add(plain);
    // Connected first: the member hangs on an open connection, as a stopped or cut-off one does.
    ours.getKVClient().get(KEY).get(10, TimeUnit.SECONDS);
    plain.getKVClient().get(KEY).get(10, TimeUnit.SECONDS);
    long lease = ours.getLeaseClient().grant(5).get(10, TimeUnit.SECONDS).getID();
    proxies.get(0).setMode(TcpProxy.Mode.BLACKHOLE);

    long sent = System.nanoTime();
    CompletableFuture<?> read = ours.getKVClient().get(KEY);
    CompletableFuture<?> keepAlive = ours.getLeaseClient().keepAliveOnce(lease);
    CompletableFuture<?> plainRead = plain.getKVClient().get(KEY);
    await().atMost(Duration.ofSeconds(5)).until(() -> read.isDone() && keepAlive.isDone());
    log.info("both calls to the hung member ended {} ms after they were sent (rpc timeout {} ms)",
        (System.nanoTime() - sent) / 1_000_000, rpcTimeout.toMillis());
    assertEquals(Status.Code.DEADLINE_EXCEEDED, code(read), "the read ended by its deadline");
    assertEquals(Status.Code.DEADLINE_EXCEEDED, code(keepAlive), "the keep-alive stream ended by its deadline");
    // Without the deadline the call stays open for as long as the member keeps the connection.
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !plainRead.isDone());
    plainRead.cancel(true);
  }

  @Test
  void aCallWithADeadlineOfItsOwnKeepsItPastTheRpcTimeout() throws Exception {
    String url = proxied().get(0);
    Duration rpcTimeout = Duration.ofMillis(300);
    Client ours = new EtcdClientFactory(List.of(url), null, null, null, null, null, rpcTimeout).get();
    closing.add(ours);
    ours.getKVClient().get(KEY).get(10, TimeUnit.SECONDS);
    proxies.get(0).setMode(TcpProxy.Mode.BLACKHOLE);

    // The cold campaign's calls wait longer than the rpc timeout (PROTOCOL.md §4.4): the deadline
    // rides in the gRPC Context, which the client's executor carries to the call.
    long sent = System.nanoTime();
    CompletableFuture<?> bounded = ours.getKVClient().get(KEY);
    CompletableFuture<?> patient = CallDeadline.within(2_000_000_000L, () -> ours.getKVClient().get(KEY));
    await().atMost(Duration.ofSeconds(2)).until(bounded::isDone);
    assertEquals(Status.Code.DEADLINE_EXCEEDED, code(bounded), "an ordinary call ends at the rpc timeout");
    assertFalse(patient.isDone(), "the call with its own deadline is still waiting after "
        + (System.nanoTime() - sent) / 1_000_000 + " ms");
    await().atMost(Duration.ofSeconds(5)).until(patient::isDone);
    long took = (System.nanoTime() - sent) / 1_000_000;
    assertEquals(Status.Code.DEADLINE_EXCEEDED, code(patient), "and ends at its own deadline");
    assertTrue(took >= 1_900, "ended after " + took + " ms, not before its 2 s deadline");
  }

  @Test
  void aKeepAliveIsOneMessageAtEtcdWhereJetcdAloneSendsTwo() throws Exception {
    String url = ETCD.cluster().clientEndpoints().get(0);
    Client ours = new EtcdClientFactory(List.of(url), null, null, null, null, null, Duration.ofSeconds(1)).get();
    closing.add(ours);
    Client plain = Client.builder().endpoints(url).build();
    closing.add(plain);
    long lease = ours.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
    int n = 20;
    double before = keepAliveMessages(url);
    for (int i = 0; i < n; i++) {
      ours.getLeaseClient().keepAliveOnce(lease).get(10, TimeUnit.SECONDS);
    }
    // A stream's messages are counted as they arrive: wait for the last one's end to be in.
    await().atMost(Duration.ofSeconds(5)).until(() -> keepAliveMessages(url) - before >= n);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> keepAliveMessages(url) - before == n);
    double plainBefore = keepAliveMessages(url);
    for (int i = 0; i < n; i++) {
      plain.getLeaseClient().keepAliveOnce(lease).get(10, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> keepAliveMessages(url) - plainBefore >= 2 * n);
    log.info("{} keep-alives: {} messages at etcd from the elector's client, {} from a plain jetcd client", n,
        n, keepAliveMessages(url) - plainBefore);
  }

  /** keepAliveMessages is etcd's count of LeaseKeepAlive request messages received, from its metrics. */
  private static double keepAliveMessages(String url) throws Exception {
    java.net.URL metrics = java.net.URI.create(url + "/metrics").toURL();
    try (java.io.BufferedReader in = new java.io.BufferedReader(
        new java.io.InputStreamReader(metrics.openStream(), StandardCharsets.UTF_8))) {
      return in.lines()
          .filter(l -> l.startsWith("grpc_server_msg_received_total{") && l.contains("grpc_method=\"LeaseKeepAlive\""))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .sum();
    }
  }

  @Test
  void aLeaderRenewsThroughTheOtherMembersWhileOneHangs() throws Exception {
    List<String> urls = proxied();
    Duration ttl = Duration.ofSeconds(4);
    Duration rpcTimeout = Duration.ofSeconds(1);
    List<Renewal> renewals = new CopyOnWriteArrayList<>();
    List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
    LeaderElector leader = EtcdLeaderElector.builder()
        .endpoints(urls).electionKey("/hung/election").candidateId("leader")
        .leaseTtl(ttl).rpcTimeout(rpcTimeout).build();
    closing.add(leader);
    leader.onRenewal(r -> {
      if (r.role() == ElectorState.MASTER) {
        renewals.add(r);
      }
    });
    leader.onLeadershipChanged(events::add);
    leader.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> leader.leadership().isPresent());
    long token = leader.leadership().orElseThrow().fencingToken();
    // A few renewals first: the client is then connected to all three members.
    await().atMost(Duration.ofSeconds(20)).until(() -> renewals.size() >= 4);

    proxies.get(0).setMode(TcpProxy.Mode.BLACKHOLE);
    long hungAt = System.nanoTime();
    int before = renewals.size();
    Duration hold = ttl.multipliedBy(3);
    await().during(hold).atMost(hold.plusSeconds(2)).until(
        () -> leader.leadership().map(l -> l.fencingToken() == token).orElse(false));
    List<Renewal> during = renewals.subList(before, renewals.size());
    long interval = ttl.toNanos() * 99 / 100 - ttl.toNanos() / 10 - TimeUnit.SECONDS.toNanos(2);
    long widest = widestGap(hungAt, during);
    log.info("{} MASTER renewals while a member hung for {} s; widest gap {} ms (renewal interval {} ms,"
        + " hedge delay {} ms, rpc timeout {} ms)", during.size(), hold.toSeconds(), widest / 1_000_000,
        interval / 1_000_000, EtcdLeaderElector.Builder.hedgeAfter(rpcTimeout) / 1_000_000, rpcTimeout.toMillis());
    assertTrue(during.size() >= 4, "renewals went on: " + during.size());
    // A keep-alive or read that reached the hung member is answered through another one after
    // the hedge delay; without the hedge it would cost the rpc timeout and a retry.
    assertTrue(widest < interval + rpcTimeout.toNanos(),
        "no renewal waited out an rpc timeout: widest gap " + widest / 1_000_000 + " ms");
    assertFalse(events.stream().anyMatch(e -> e.isLost() || e.cause() == LeadershipEvent.Cause.STORE_UNAVAILABLE),
        "no loss and no outage reported: " + events);
  }

  @Test
  void aRenewalsReadFailsAtOnceOnACallersClientWhereJetcdRetriesAGet() throws Exception {
    EtcdMember alone = ETCD.cluster().member(0);
    CallCounter counter = new CallCounter();
    // A caller's client with jetcd's retry defaults (two retries, 500 ms then 1 s apart) and
    // etcd's hasleader metadata, as the chaos suite's candidates build theirs.
    Client callers = Client.builder().endpoints(alone.clientEndpoint()).header("hasleader", "true")
        .interceptor(counter).build();
    closing.add(callers);
    callers.getKVClient().get(KEY).get(10, TimeUnit.SECONDS);
    EtcdPort store = new EtcdPort(() -> callers, false, "/hung/election", "reader",
        new EtcdReasons("/hung/election", null), null, EtcdLeaderElector.Builder.hedgeAfter(Duration.ofSeconds(1)));
    store.open();
    List<EtcdMember> others = ETCD.cluster().members().subList(1, 3);
    try {
      others.forEach(EtcdMember::pause);
      // The member left alone loses its leader and says "no leader" at once (hasleader).
      await().atMost(Duration.ofSeconds(10)).until(() -> code(callers.getKVClient().txn().commit()) == Status.Code.UNAVAILABLE);

      counter.reset();
      Input confirm = store.call(new EtcdCommand.ConfirmRead(1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(confirm instanceof EtcdInput.ConfirmFailed, "the confirming read failed: " + confirm);
      Input poll = store.call(new EtcdCommand.Poll(2, false)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(poll instanceof EtcdInput.PollFailed, "the poll failed: " + poll);
      log.info("calls sent for a confirming read and a poll to a member without a leader: {}", counter.calls);
      assertEquals(0, counter.count("Range"), "no range read: " + counter.calls);
      // One transaction each (a hedge copy only if the first had not failed within 200 ms).
      assertTrue(counter.count("Txn") >= 2 && counter.count("Txn") <= 3, "one try each: " + counter.calls);

      // What the elector no longer does: jetcd retries a get that failed UNAVAILABLE.
      counter.reset();
      assertEquals(Status.Code.UNAVAILABLE, code(callers.getKVClient().get(KEY)));
      assertEquals(3, counter.count("Range"), "jetcd's get is tried three times: " + counter.calls);
    } finally {
      others.forEach(EtcdMember::resume);
      ETCD.cluster().awaitHealthy(Duration.ofSeconds(30));
    }
  }

  /** CallCounter counts the gRPC calls a client starts, by method. Thread-safe. */
  private static final class CallCounter implements io.grpc.ClientInterceptor {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(
        io.grpc.MethodDescriptor<Q, R> method, io.grpc.CallOptions options, io.grpc.Channel next) {
      calls.add(method.getBareMethodName());
      return next.newCall(method, options);
    }

    void reset() {
      calls.clear();
    }

    long count(String method) {
      return calls.stream().filter(method::equals).count();
    }
  }

  private static long widestGap(long from, List<Renewal> renewals) {
    long last = from;
    long widest = 0;
    for (Renewal r : renewals) {
      widest = Math.max(widest, r.nanoTime() - last);
      last = r.nanoTime();
    }
    return widest;
  }

  private static Status.Code code(CompletableFuture<?> f) {
    try {
      f.join();
      return Status.Code.OK;
    } catch (RuntimeException e) {
      return Status.fromThrowable(e).getCode();
    }
  }
}
