package dev.leasehold.it;

import dev.leasehold.LeadershipEvent;
import dev.leasehold.etcd.EtcdLeaderElector;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CandidateMain runs one elector in its own JVM so tests and the demo can crash it for real
 * (SIGKILL) or freeze it (SIGSTOP).
 *
 * <p>Arguments: {@code --endpoints=URL[,URL] --key=KEY --id=ID [--ttl-seconds=N]
 * [--poll-millis=N]}. It prints one line per fact on stdout: {@code READY <pid>}, and
 * {@code EVENT <nanoTime> <cause> <from> <to> <leaderId|-> <token|0>} per event. It reads
 * commands from stdin: {@code resign}, {@code close} (revoke and exit 0). End of input
 * closes too. Not thread-safe; one instance per JVM.
 */
public final class CandidateMain {
  private CandidateMain() {}

  /** main runs the candidate until told to close or killed. */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    EtcdLeaderElector elector =
        EtcdLeaderElector.builder()
            .endpoints(List.of(required(opts, "endpoints").split(",")))
            .electionKey(required(opts, "key"))
            .candidateId(required(opts, "id"))
            .leaseTtl(Duration.ofSeconds(Long.parseLong(opts.getOrDefault("ttl-seconds", "2"))))
            .pollInterval(Duration.ofMillis(Long.parseLong(opts.getOrDefault("poll-millis", "1000"))))
            .build();
    elector.onLeadershipChanged(e -> out.println(line(e)));
    elector.start();
    out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String cmd;
    while ((cmd = in.readLine()) != null) {
      switch (cmd.trim()) {
        case "resign" -> elector.resign();
        case "close" -> {
          elector.close();
          out.println("CLOSED");
          return;
        }
        default -> out.println("UNKNOWN " + cmd);
      }
    }
    elector.close();
  }

  /** line formats an event as the one-line record described in the class doc. */
  public static String line(LeadershipEvent e) {
    return "EVENT " + e.nanoTime() + " " + e.cause() + " " + e.from() + " " + e.to() + " "
        + e.leaderId().orElse("-") + " " + e.fencingToken().orElse(0);
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new IllegalArgumentException("arguments must look like --name=value, but was \"" + a + "\"");
      }
      int eq = a.indexOf('=');
      m.put(a.substring(2, eq), a.substring(eq + 1));
    }
    return m;
  }

  static String required(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }
}
