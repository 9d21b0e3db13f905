package dev.leasehold.it;

import dev.leasehold.etcd.EtcdSession;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * SpreadMember is one instance JVM of a spreading fleet (PROTOCOL.md §11.7), for the spread ITs
 * and the bench's spread phase: one spreading {@link EtcdSession} with {@code --count} shard
 * elections, started at once. It prints {@code READY} once the session and its elections are
 * started, and closes on a {@code close} line (a SIGKILL is a crash). Arguments: {@code
 * --endpoints=URL[,URL] --prefix=P --id=ID --count=N --ttl-seconds=N}. Not thread-safe; one per
 * JVM.
 */
public final class SpreadMember {
  private SpreadMember() {}

  /** main runs the instance until told to close. */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (String a : args) {
      o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    EtcdSession session = EtcdSession.builder().endpoints(o.get("endpoints").split(",")).prefix(o.get("prefix"))
        .candidateId(o.get("id")).leaseTtl(Duration.ofSeconds(Long.parseLong(o.get("ttl-seconds"))))
        .spread(true).closeOnShutdown(false).build();
    int count = Integer.parseInt(o.get("count"));
    for (int i = 0; i < count; i++) {
      session.election("shard-" + i).start();
    }
    session.start();
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.trim().equals("close")) {
      // Only "close" is a command.
    }
    session.close();
    System.out.println("CLOSED");
    System.exit(0);
  }
}
