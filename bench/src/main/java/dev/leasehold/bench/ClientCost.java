package dev.leasehold.bench;

import dev.leasehold.bench.contender.ContenderMain;
import dev.leasehold.bench.contender.SharedClient;
import dev.leasehold.etcd.EtcdCallPolicy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * ClientCost measures what one etcd call costs the JVM that sends it: {@code --calls} reads of
 * one key on one shared jetcd client, at most {@code --in-flight} at a time, {@code --rounds}
 * times (the first rounds warm the JVM), and prints each round's wall time and the process's
 * CPU time per call. {@code --kind=get} is a plain range read, {@code --kind=txn} the read-only
 * transaction the elector reads with; {@code --policy=true} adds the elector's
 * {@link EtcdCallPolicy}. It tells how many calls a cold start of many electors on one client
 * can afford (bench/HISTORY.md). Usage: {@code ClientCost --endpoints=URL[,URL...] [--kind=get|txn]
 * [--calls=5000] [--in-flight=1000] [--rounds=4] [--policy=false]}.
 *
 * <p>Not thread-safe: a main program.
 */
public final class ClientCost {
  private ClientCost() {}

  /** main runs the rounds and exits. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = ContenderMain.parse(args);
    String endpoints = ContenderMain.required(o, "endpoints");
    String kind = o.getOrDefault("kind", "get");
    int calls = Integer.parseInt(o.getOrDefault("calls", "5000"));
    int inFlight = Integer.parseInt(o.getOrDefault("in-flight", "1000"));
    int rounds = Integer.parseInt(o.getOrDefault("rounds", "4"));
    boolean policy = Boolean.parseBoolean(o.getOrDefault("policy", "false"));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    Client client = policy
        ? SharedClient.build(endpoints.split(","), new EtcdCallPolicy(Duration.ofSeconds(5)))
        : SharedClient.build(endpoints.split(","));
    ByteSequence key = ByteSequence.from("/leasehold-bench/client-cost", StandardCharsets.UTF_8);
    SharedClient.connect(client, "/leasehold-bench/client-cost");
    Supplier<CompletableFuture<?>> call = switch (kind) {
      case "get" -> () -> client.getKVClient().get(key);
      case "txn" -> () -> client.getKVClient().txn().Then(Op.get(key, GetOption.DEFAULT)).commit();
      default -> throw new IllegalArgumentException("--kind must be get or txn, but was " + kind);
    };
    for (int round = 1; round <= rounds; round++) {
      Semaphore window = new Semaphore(inFlight);
      CountDownLatch done = new CountDownLatch(calls);
      long cpu0 = ContenderMain.processCpuNanos();
      long t0 = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        window.acquire();
        call.get().whenComplete((r, e) -> {
          window.release();
          done.countDown();
        });
      }
      done.await();
      long wall = System.nanoTime() - t0;
      long cpu = ContenderMain.processCpuNanos() - cpu0;
      out.printf("RESULT round=%d kind=%s policy=%s calls=%d in_flight=%d wall_ms=%.1f cpu_ms_per_call=%.3f%n",
          round, kind, policy, calls, inFlight, wall / 1e6, cpu / 1e6 / calls);
    }
    client.close();
    System.exit(0);
  }
}
