package dev.leasehold.bench.contender;

import dev.leasehold.bench.HopTrace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * CommandLoop is what every contender JVM of the bench reads from stdin until {@code close} or
 * the end of input: {@code resign} resigns every contender here that leads (one {@code R <index>
 * <nanoTime>} line each, just before the call), {@code trace} prints the handover trace's marks
 * since the last {@code trace} ({@code T <hop> <nanoTime>}, none unless {@code
 * -Dleasehold.trace=true}) and {@code TRACE_END}; anything else is answered {@code UNKNOWN}.
 *
 * <p>Not thread-safe: the JVM's main thread runs it once.
 */
final class CommandLoop {
  private CommandLoop() {}

  /** serve answers stdin's commands until {@code close}; {@code leading} is 1 where a contender leads. */
  static void serve(PrintStream out, List<Contender> contenders, AtomicLongArray leading) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String cmd;
    while ((cmd = in.readLine()) != null && !cmd.trim().equals("close")) {
      if (cmd.trim().equals("resign")) {
        for (int i = 0; i < contenders.size(); i++) {
          if (leading.get(i) == 1) {
            out.println("R " + i + " " + System.nanoTime());
            contenders.get(i).resign();
          }
        }
      } else if (cmd.trim().equals("trace")) {
        for (HopTrace.Entry e : HopTrace.drain()) {
          out.println("T " + e.hop().name() + " " + e.nanoTime());
        }
        out.println("TRACE_END");
      } else {
        out.println("UNKNOWN " + cmd);
      }
    }
  }
}
