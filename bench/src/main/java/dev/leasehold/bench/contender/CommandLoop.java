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
 * -Dleasehold.trace=true}) and {@code TRACE_END}, {@code settle} answers {@code LEADER_KNOWN} once every
 * contender here leads or knows who does ({@link Contender#knowsLeader()}; at most {@link
 * #SETTLE_WAIT_MILLIS}, then {@code LEADER_UNKNOWN}); anything else is answered {@code UNKNOWN}.
 *
 * <p>Not thread-safe: the JVM's main thread runs it once.
 */
final class CommandLoop {
  /** SETTLE_WAIT_MILLIS bounds how long {@code settle} waits for every contender to know the leader. */
  static final long SETTLE_WAIT_MILLIS = 30_000;

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
      } else if (cmd.trim().equals("settle")) {
        out.println(settled(contenders) ? "LEADER_KNOWN" : "LEADER_UNKNOWN");
      } else {
        out.println("UNKNOWN " + cmd);
      }
    }
  }

  private static boolean settled(List<Contender> contenders) {
    long deadline = System.nanoTime() + SETTLE_WAIT_MILLIS * 1_000_000;
    while (!contenders.stream().allMatch(Contender::knowsLeader)) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
