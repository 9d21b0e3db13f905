package dev.leasehold.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The split machine against a copy of the pre-split one (fad1238), input by input: same
 * commands in the same order, same accessors after every step. Committed to make the check
 * reproducible, then removed: the copy would freeze the old behaviour.
 */
class SplitEquivalenceTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  @Test
  void sameCommandsForTheSameInputs() {
    long seeds = Long.getLong("diff.seeds", 2_000);
    int steps = Integer.getInteger("diff.steps", 400);
    long published = 0;
    long total = 0;
    java.util.Map<String, Long> seen = new java.util.TreeMap<>();
    for (long seed = 1; seed <= seeds; seed++) {
      SplittableRandom pick = new SplittableRandom(seed * 7919);
      ProtocolConfig config =
          new ProtocolConfig(
              "me", 2 + pick.nextInt(4), (100 + pick.nextInt(400)) * MS, pick.nextInt(3) * 0.01,
              (300 + pick.nextInt(1500)) * MS, (20 + pick.nextInt(200)) * MS, 1 * S,
              (50 + pick.nextInt(250)) * MS, pick.nextInt(4) * S, pick.nextBoolean());
      PreSplitElectionMachine ref = new PreSplitElectionMachine(config, new SplittableRandom(seed));
      ElectionMachine split = new ElectionMachine(config, new SplittableRandom(seed));
      RandomDriver driver = new RandomDriver(seed);
      List<String> trace = new ArrayList<>();
      Input in = driver.first();
      for (int i = 0; i < steps && !driver.done(); i++) {
        long now = driver.now();
        List<Command> a;
        try {
          a = ref.step(in, now);
        } catch (RuntimeException e) {
          throw new AssertionError("reference threw at seed " + seed + " step " + i + "\n" + String.join("\n", trace), e);
        }
        List<Command> b;
        try {
          b = split.step(in, now);
        } catch (RuntimeException e) {
          throw new AssertionError("split threw at seed " + seed + " step " + i + " on " + in + "\n"
              + String.join("\n", tail(trace)), e);
        }
        trace.add(i + " " + ref.role() + " in=" + in + " out=" + a);
        String where = "seed " + seed + " step " + i + " in=" + in + "\n" + String.join("\n", tail(trace));
        assertEquals(a, b, () -> "commands differ at " + where);
        assertEquals(ref.role(), split.role(), () -> "role differs at " + where);
        assertEquals(ref.leader(), split.leader(), () -> "leader differs at " + where);
        assertEquals(ref.deadline(), split.deadline(), () -> "deadline differs at " + where);
        assertEquals(ref.fencingToken(), split.fencingToken(), () -> "token differs at " + where);
        assertEquals(ref.leaseId(), split.leaseId(), () -> "lease differs at " + where);
        assertEquals(ref.grantedTtlSeconds(), split.grantedTtlSeconds(), () -> "ttl differs at " + where);
        assertEquals(ref.isUnavailable(), split.isUnavailable(), () -> "unavailable differs at " + where);
        seen.merge(in.getClass().getSimpleName() + "@" + ref.role(), 1L, Long::sum);
        for (Command c : a) {
          if (c instanceof Command.Publish p) {
            published++;
            seen.merge("publish " + p.from() + "->" + p.to() + " " + p.cause(), 1L, Long::sum);
          }
        }
        total++;
        driver.sent(a);
        in = driver.next();
      }
    }
    System.out.println("differential: " + total + " steps, " + published + " events");
    seen.forEach((k, v) -> System.out.println("  " + k + " " + v));
  }

  private static List<String> tail(List<String> trace) {
    return trace.subList(Math.max(0, trace.size() - 25), trace.size());
  }
}
