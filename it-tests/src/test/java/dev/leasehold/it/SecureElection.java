package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.etcd.EtcdLeaderElector;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SecureElection runs electors against a TLS and/or auth-enabled cluster and checks the two outcomes the TLS and auth
 * ITs care about: an elector that leads, resigns and closes with nothing left, and one that etcd refuses, which stays
 * FOLLOWER, reports STORE_UNAVAILABLE, logs a reason naming the refusal, and holds nothing. Not thread-safe: one
 * test thread drives it.
 */
final class SecureElection implements AutoCloseable {
  static final Logger log = LoggerFactory.getLogger(SecureElection.class);
  static final Duration TTL = Duration.ofSeconds(5);
  static final Duration WAIT = Duration.ofSeconds(20);
  /** How long a refused elector is watched never leading: several retries at the 1 s maximum backoff. */
  static final Duration STAYS_FOLLOWER = Duration.ofSeconds(3);
  /** How long an elector refused for good is watched reporting one outage, not flapping: 5 retries at 1 s. */
  static final Duration NO_FLAPPING = Duration.ofSeconds(5);

  private final EtcdCluster cluster;
  private final LogCapture capture = new LogCapture();
  private final List<LeaderElector> electors = new ArrayList<>();
  private final Client root;

  SecureElection(EtcdCluster cluster) {
    this.cluster = cluster;
    this.root = cluster.rootClient();
  }

  /** certificates makes a fresh test PKI named {@code name} under target/, where mvn clean removes it. */
  static EtcdTls certificates(String name) {
    try {
      Path base = Files.createDirectories(Path.of("target", "it-tls").toAbsolutePath());
      return EtcdTls.generate(base.resolve(name + "-" + UUID.randomUUID()), name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** elector builds one on {@code key} with this cluster's endpoints, then {@code settings}; not started. */
  Started elector(String id, String key, Consumer<EtcdLeaderElector.Builder> settings) {
    EtcdLeaderElector.Builder b = EtcdLeaderElector.builder()
        .endpoints(cluster.clientEndpoints())
        .electionKey(key)
        .candidateId(id)
        .leaseTtl(TTL)
        .pollInterval(Duration.ofMillis(500));
    settings.accept(b);
    LeaderElector e = b.build();
    electors.add(e);
    EventLog events = new EventLog(id);
    e.onLeadershipChanged(events);
    e.start();
    return new Started(e, events, id + "@" + key, key);
  }

  /** Started is one started elector with its events and the name its log lines start with. */
  record Started(LeaderElector elector, EventLog events, String name, String key) {}

  /** leadsResignsAndCloses checks a full term: elected with the key in etcd, resigned with it gone, closed clean. */
  void leadsResignsAndCloses(Started s) throws Exception {
    await().atMost(WAIT).until(() -> s.elector().isLeader());
    assertEquals(s.name().substring(0, s.name().indexOf('@')), value(s.key()), "the key names the leader");
    s.elector().resign();
    await().atMost(WAIT).until(() -> s.events().has(Cause.RESIGNED));
    // resignHoldoff (one TTL) keeps it from taking the key back at once.
    await().atMost(Duration.ofSeconds(2)).until(() -> value(s.key()) == null);
    s.elector().close();
    assertEquals(ElectorState.STOPPED, s.elector().state());
    assertNothingHeld(s);
    s.events().assertOrderedAndPaired();
  }

  /**
   * refused checks that etcd's refusal keeps the elector a FOLLOWER that reports STORE_UNAVAILABLE, that its log
   * names the refusal with {@code reason}, and that it holds nothing, while running and after close.
   */
  void refused(Started s, String reason) throws Exception {
    await().atMost(WAIT).until(() -> s.events().has(Cause.STORE_UNAVAILABLE));
    await().atMost(WAIT).until(() -> capture.has(s.name(), reason));
    await().during(STAYS_FOLLOWER).atMost(STAYS_FOLLOWER.plusSeconds(2))
        .until(() -> s.elector().state() == ElectorState.FOLLOWER && !s.elector().isLeader());
    assertFalse(s.events().has(Cause.ELECTED), "never elected");
    assertNothingHeld(s);
    List<String> lines = capture.lines(s.name());
    lines.stream().filter(l -> l.startsWith("WARN")).forEach(l -> log.info("log line: {}", l));
    assertTrue(lines.stream().filter(l -> l.contains("store unavailable")).count() <= 1,
        "one STORE_UNAVAILABLE line, not one per retry: " + lines);
    // A refusal is a configuration error, reported as such once: one event, one ERROR line.
    assertEquals(1, s.events().count(Cause.STORE_UNAVAILABLE), "one outage: " + s.events().events());
    assertFalse(s.events().has(Cause.STORE_RECOVERED), "no recovery: " + s.events().events());
    String eventReason = s.events().last(Cause.STORE_UNAVAILABLE).orElseThrow().reason().orElseThrow();
    assertTrue(eventReason.startsWith("configuration error: ") && eventReason.contains(reason),
        "the event names the configuration error: " + eventReason);
    assertOneConfigurationErrorLine(s);
    s.elector().close();
    assertNothingHeld(s);
  }

  /** assertOneConfigurationErrorLine checks that the outage was logged once, at ERROR, as a configuration error. */
  void assertOneConfigurationErrorLine(Started s) {
    List<String> lines = capture.lines(s.name());
    List<String> errors = lines.stream().filter(l -> l.startsWith("ERROR")).toList();
    assertEquals(1, errors.size(), "one ERROR line: " + lines);
    assertTrue(errors.get(0).contains("store unavailable") && errors.get(0).contains("configuration error: "),
        "it names the configuration error: " + errors.get(0));
  }

  /** assertNothingHeld checks that the key is absent and etcd holds no lease at all. */
  void assertNothingHeld(Started s) throws Exception {
    assertEquals(null, value(s.key()), "no key left");
    assertEquals(List.of(), cluster.leaseIds(), "no lease left");
  }

  /** value reads the key as root, null when absent. */
  String value(String key) throws Exception {
    var kvs = root.getKVClient().get(bytes(key)).get(5, TimeUnit.SECONDS).getKvs();
    return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
  }

  Client root() {
    return root;
  }

  LogCapture capture() {
    return capture;
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    electors.forEach(LeaderElector::close);
    root.close();
    capture.close();
  }
}
