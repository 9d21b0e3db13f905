package dev.leasehold.bench.contender;

import dev.leasehold.bench.HopTrace;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * JdbcContenderMain runs one or more SQL candidates of one {@link JdbcKind} in a child JVM,
 * with {@link ContenderMain}'s output lines and stdin commands.
 *
 * <p>Arguments: {@code --kind=<JdbcKind> --url=JDBC_URL --user=U --password=P
 * --key=NAME --id=ID --ttl-millis=N [--count=N]}; each candidate opens its own sessions. Not
 * thread-safe; one per JVM.
 */
public final class JdbcContenderMain {
  private JdbcContenderMain() {}

  /** main runs the candidates until told to close or killed. */
  public static void main(String[] args) throws Exception {
    HopTrace.start();
    Map<String, String> o = ContenderMain.parse(args);
    JdbcKind kind = JdbcKind.valueOf(ContenderMain.required(o, "kind"));
    String url = ContenderMain.required(o, "url");
    String user = ContenderMain.required(o, "user");
    String password = o.getOrDefault("password", "");
    String key = ContenderMain.required(o, "key");
    String id = ContenderMain.required(o, "id");
    long ttlMillis = Long.parseLong(ContenderMain.required(o, "ttl-millis"));
    int count = Integer.parseInt(o.getOrDefault("count", "1"));

    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // 1 while the candidate at that index leads, else 0.
    AtomicLongArray leading = new AtomicLongArray(count);
    List<Contender> contenders = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int idx = i;
      Contender.Sink sink =
          new Contender.Sink() {
            @Override
            public void elected(long nanoTime, long sourceNanoTime) {
              leading.set(idx, 1);
              out.println("E " + idx + " " + nanoTime + " ELECTED " + sourceNanoTime);
            }

            @Override
            public void lost(long nanoTime, String cause) {
              leading.set(idx, 0);
              out.println("E " + idx + " " + nanoTime + " LOST " + cause);
            }
          };
      contenders.add(kind.create(url, user, password, key, count == 1 ? id : id + "-" + i, ttlMillis, sink));
    }
    for (Contender c : contenders) {
      c.start();
    }
    out.println("READY " + ProcessHandle.current().pid());
    CommandLoop.serve(out, contenders, leading);
    contenders.parallelStream().forEach(Contender::close);
    out.println("CLOSED");
    System.exit(0);
  }
}
