package dev.leasehold.it;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdCallPolicy;
import dev.leasehold.etcd.EtcdSession;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * SpreadChaosMember is one member JVM of the spreading chaos run (the member storm, CHAOS.md):
 * one spreading {@link EtcdSession} over {@code --shards} elections {@code shard-0 ..}, and for
 * each shard the chaos counter workload ({@link EtcdCounterWorkload}): while it leads shard i it
 * reads shard i's counter, thinks, and writes counter+1 fenced by that term's token
 * ({@link dev.leasehold.etcd.EtcdFencing#guard} on the shard's key).
 *
 * <p>Arguments: {@code --endpoints=URL[,URL] --prefix=P --counter-prefix=C --shards=N
 * --ttl-seconds=N --poll-millis=N --think-millis=N --rpc-timeout-millis=N}. It starts as a
 * spare: it makes its etcd client, reads once (so the JVM has loaded and linked what a member
 * runs), prints {@code WARM} and waits for {@code join <candidateId> <processId>} on stdin, so a
 * storm's join lands when the storm draws it, not a JVM's start later. The candidate id is the
 * session's (a returning member reuses it); the process id names this JVM in the history and in
 * every value it writes.
 *
 * <p>Once joined it prints {@link CandidateMain}'s lines, each about one shard behind {@code S <shard> }:
 * {@code S shard-3 EVENT ...}, {@code S shard-3 SEND ...}, {@code S shard-3 WRITE ...}; and
 * unprefixed {@code STALL} lines (the process did not get the CPU), {@code READY <pid>} once the
 * session and its elections are started, and {@code CLOSED} after a {@code close} line on stdin
 * (end of input closes too). Not thread-safe; one per JVM.
 */
public final class SpreadChaosMember {
  private SpreadChaosMember() {}

  /** main runs the member until told to close, or killed. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = CandidateMain.parse(args);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int ttl = Integer.parseInt(CandidateMain.required(o, "ttl-seconds"));
    Duration rpcTimeout = Duration.ofMillis(Long.parseLong(CandidateMain.required(o, "rpc-timeout-millis")));
    // As the chaos candidates' client: hasleader metadata and a deadline on every call but a watch.
    Client client = Client.builder().endpoints(CandidateMain.required(o, "endpoints").split(","))
        .header("hasleader", "true").interceptor(new EtcdCallPolicy(rpcTimeout)).build();
    String counterPrefix = CandidateMain.required(o, "counter-prefix");
    warm(client, ByteSequence.from(counterPrefix + "warm", StandardCharsets.UTF_8));
    out.println("WARM");
    String first = in.readLine();
    if (first == null) {
      // The harness went away before this spare was needed.
      client.close();
      return;
    }
    String[] join = first.trim().split(" ");
    if (join.length != 3 || !join[0].equals("join")) {
      throw new IllegalArgumentException("expected \"join <candidateId> <processId>\", but got " + String.join(" ", join));
    }
    EtcdSession session = EtcdSession.builder().client(client).prefix(CandidateMain.required(o, "prefix"))
        .candidateId(join[1]).leaseTtl(Duration.ofSeconds(ttl))
        .pollInterval(Duration.ofMillis(Long.parseLong(CandidateMain.required(o, "poll-millis"))))
        .rpcTimeout(rpcTimeout).spread(true).closeOnShutdown(false).build();
    String process = join[2];
    long think = Long.parseLong(CandidateMain.required(o, "think-millis"));
    int shards = Integer.parseInt(CandidateMain.required(o, "shards"));
    List<CounterWorkload> workloads = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      String name = "shard-" + i;
      PrintStream shardOut = prefixed(out, "S " + name + " ");
      LeaderElector election = session.election(name);
      CounterWorkload counter = new EtcdCounterWorkload(client.getKVClient(), session.prefix() + name,
          counterPrefix + name, process, think, rpcTimeout, shardOut);
      election.onLeadershipChanged(e -> {
        shardOut.println(CandidateMain.line(e));
        if (e.cause() == LeadershipEvent.Cause.ELECTED) {
          e.leadership().ifPresent(counter::lead);
        }
      });
      Thread t = new Thread(counter, "counter-" + name);
      t.setDaemon(true);
      t.start();
      workloads.add(counter);
      election.start();
    }
    Thread stalls = new Thread(() -> CandidateMain.reportStalls(out), "stall-report");
    stalls.setDaemon(true);
    stalls.start();
    session.start();
    out.println("READY " + ProcessHandle.current().pid());
    String line;
    while ((line = in.readLine()) != null && !line.trim().equals("close")) {
      out.println("UNKNOWN " + line);
    }
    session.close();
    workloads.forEach(CounterWorkload::stop);
    out.println("CLOSED");
    client.close();
    System.exit(0);
  }

  /**
   * warm reads {@code key} until a read succeeds (at most 20 tries): a cold JVM on a loaded
   * machine can take longer than the rpc timeout to link and send its first call.
   */
  private static void warm(Client client, ByteSequence key) throws Exception {
    for (int i = 1; ; i++) {
      try {
        client.getKVClient().get(key).get();
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        if (i == 20) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  /** prefixed is a stream that prints each line to {@code target} behind {@code prefix}, as one line. */
  private static PrintStream prefixed(PrintStream target, String prefix) {
    return new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8) {
      @Override
      public void println(String x) {
        // One call on the shared stream: lines of several shards' threads never interleave.
        target.println(prefix + x);
      }
    };
  }
}
