package dev.leasehold.it.demo;

import dev.leasehold.Participant;
import dev.leasehold.it.CandidateProcess;
import dev.leasehold.it.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Demo starts a three-member etcd cluster and three candidate JVMs, shows who leads, makes
 * the leader resign once the other two are in the election's queue (so that it hands the key to
 * the first of them in one transaction), then kills the next leader with SIGKILL, and prints
 * how long each handover took.
 *
 * <p>Times are read from the candidates' own event stamps (monotonic clock, comparable on one
 * host). Not thread-safe; run it as a program.
 */
public final class Demo {
  private static final int TTL_SECONDS = 2;
  private static final Duration WAIT = Duration.ofSeconds(30);

  private Demo() {}

  /** main runs the demo and exits 0 when every step worked. */
  public static void main(String[] args) throws Exception {
    Path logs = Path.of("target", "demo-logs");
    say("starting a 3-member etcd cluster on 127.0.0.1 ...");
    try (EtcdCluster etcd = EtcdCluster.builder().members(3).name("demo").start();
        Client reader = etcd.rootClient()) {
      say("etcd is up: " + etcd.clientEndpointsCsv() + " (leader member: "
          + etcd.awaitLeader(WAIT).name() + ")");
      String key = "/leasehold/demo/" + UUID.randomUUID();
      List<CandidateProcess> candidates = new ArrayList<>();
      try {
        for (String id : List.of("alpha", "beta", "gamma")) {
          CandidateProcess p =
              CandidateProcess.start(id, etcd.clientEndpoints(), key, TTL_SECONDS,
                  logs.resolve(id + ".log"), "--poll-millis=500");
          candidates.add(p);
        }
        for (CandidateProcess p : candidates) {
          p.awaitLine(l -> l.startsWith("READY"), WAIT);
        }
        say("3 candidates started as separate JVMs (lease TTL " + TTL_SECONDS + " s)");

        Elected first = awaitElected(candidates, Long.MIN_VALUE, null);
        say(first.who.id() + " leads, fencing token " + first.token);

        // Graceful handovers: the first ones run through cold code in fresh JVMs.
        Elected second = first;
        for (int i = 1; i <= 3; i++) {
          Elected before = second;
          // The followers join the queue with their standby leases a moment after each election.
          List<String> queue = awaitQueue(reader, key, before.who.id());
          say("queue (etcdctl get --prefix " + Participant.prefix(key) + "): " + queue);
          long t0 = System.nanoTime();
          before.who.send("resign");
          second = awaitElected(candidates, t0, before.who);
          say(before.who.id() + " resigned; " + second.who.id() + " leads (token " + second.token
              + ") after " + ms(second.nanoTime - t0) + " ms" + (i == 1 ? " (cold JVMs)" : ""));
        }

        long t1 = System.nanoTime();
        second.who.kill();
        say("killed " + second.who.id() + " with SIGKILL (pid " + second.who.pid() + ")");
        Elected third = awaitElected(candidates, t1, second.who);
        say(third.who.id() + " leads (token " + third.token + ") after " + ms(third.nanoTime - t1)
            + " ms: crash failover is bounded by the lease TTL (" + TTL_SECONDS + " s)");

        for (CandidateProcess p : candidates) {
          if (p.isAlive()) {
            p.send("close");
            p.awaitLine("CLOSED"::equals, WAIT);
          }
        }
        say("candidates closed (leases revoked); stopping etcd");
      } finally {
        candidates.forEach(CandidateProcess::close);
      }
    }
    say("done");
  }

  private record Elected(CandidateProcess who, long nanoTime, long token) {}

  private static Elected awaitElected(List<CandidateProcess> cs, long after, CandidateProcess not)
      throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < end) {
      for (CandidateProcess c : cs) {
        if (c == not) {
          continue;
        }
        for (String l : c.lines()) {
          String[] f = l.split(" ");
          if (f[0].equals("EVENT") && f[2].equals("ELECTED") && Long.parseLong(f[1]) > after) {
            return new Elected(c, Long.parseLong(f[1]), Long.parseLong(f[6]));
          }
        }
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("no candidate was elected within " + WAIT);
  }

  /**
   * awaitQueue waits until the election's queue, as etcd stores it (one participant key per
   * candidate with a standby lease, its value the candidate id; the leader's stays on its lease),
   * lists two candidates besides {@code leader}, and returns the ids it lists.
   */
  private static List<String> awaitQueue(Client etcd, String key, String leader) throws Exception {
    ByteSequence prefix = ByteSequence.from(Participant.prefix(key), StandardCharsets.UTF_8);
    long end = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < end) {
      TreeSet<String> ids = new TreeSet<>();
      etcd.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS)
          .getKvs().forEach(kv -> ids.add(kv.getValue().toString(StandardCharsets.UTF_8)));
      if (ids.stream().filter(id -> !id.equals(leader)).count() >= 2) {
        return List.copyOf(ids);
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the queue did not list two candidates besides " + leader + " within " + WAIT);
  }

  private static String ms(long nanos) {
    return String.format("%.1f", nanos / 1e6);
  }

  private static void say(String s) {
    System.out.println("[demo] " + s);
  }
}
