package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Attempt;
import dev.leasehold.it.chaos.History.FaultWindow;
import dev.leasehold.it.chaos.History.Freeze;
import dev.leasehold.it.chaos.History.Interval;
import dev.leasehold.it.chaos.History.Outcome;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * HistoryRecorder turns the candidates' stdout lines ({@code EVENT ...}, {@code WRITE ...}; see
 * {@code CandidateMain}) and the harness's own records (faults, freezes, kills) into the parts
 * of a {@link History}, and keeps the live view the harness steers by: who is MASTER now.
 *
 * <p>Thread-safe: every method is synchronized; lines arrive on each candidate's reader thread.
 */
public final class HistoryRecorder {
  private final List<String> log = new ArrayList<>();
  private final Map<String, Open> open = new LinkedHashMap<>();
  private final List<Interval> intervals = new ArrayList<>();
  private final List<Attempt> attempts = new ArrayList<>();
  private final List<FaultWindow> faults = new ArrayList<>();
  private final List<Freeze> freezes = new ArrayList<>();
  private final List<Freeze> stalls = new ArrayList<>();
  private final Map<String, Long> lastLine = new LinkedHashMap<>();
  // Attempts announced by SEND whose WRITE line has not come (yet): key process#seq.
  private final Map<String, Attempt> sent = new LinkedHashMap<>();
  // Processes run under libfaketime: their clock probes, and once fitted, the map of their stamps.
  private final Map<String, List<ClockMap.Probe>> probes = new LinkedHashMap<>();
  private final Map<String, ClockMap> clockMaps = new LinkedHashMap<>();
  private final List<History.ClockRate> clockRates = new ArrayList<>();

  private record Open(long token, long start) {}

  /** listener returns the line consumer for one candidate process. */
  public Consumer<String> listener(String process) {
    return line -> accept(process, line);
  }

  /** accept records one line printed by {@code process}. */
  public synchronized void accept(String process, String line) {
    long arrived = System.nanoTime();
    log.add(arrived + " " + process + " " + line);
    lastLine.put(process, arrived);
    String[] f = line.split(" ");
    ClockMap map = clockMaps.get(process);
    if (map != null) {
      f = mapped(f, map);
    }
    try {
      if (f[0].equals("CLOCK") && f.length >= 3) {
        probes.computeIfAbsent(process, p -> new ArrayList<>())
            .add(new ClockMap.Probe(Long.parseLong(f[1]), Long.parseLong(f[2]), arrived));
      } else if (f[0].equals("EVENT") && f.length >= 7) {
        long t = Long.parseLong(f[1]);
        String cause = f[2];
        String from = f[3];
        String to = f[4];
        if (cause.equals("ELECTED")) {
          open.put(process, new Open(Long.parseLong(f[6]), t));
        } else if (from.equals("MASTER") && !to.equals("MASTER")) {
          Open o = open.remove(process);
          if (o != null) {
            intervals.add(new Interval(process, o.token(), o.start(), t, cause));
          }
        }
      } else if (f[0].equals("SEND") && f.length >= 4) {
        long send = Long.parseLong(f[1]);
        sent.put(process + "#" + f[3], new Attempt(process, Long.parseLong(f[3]), Long.parseLong(f[2]), send, send,
            Long.MAX_VALUE, Outcome.ERROR, -1));
      } else if (f[0].equals("STALL") && f.length >= 3) {
        stalls.add(new Freeze(process, Long.parseLong(f[1]), Long.parseLong(f[2])));
      } else if (f[0].equals("WRITE") && f.length >= 8) {
        notifyAll();
        sent.remove(process + "#" + f[7]);
        attempts.add(new Attempt(process, Long.parseLong(f[7]), Long.parseLong(f[4]), Long.parseLong(f[1]),
            Long.parseLong(f[2]), Long.parseLong(f[3]), Outcome.valueOf(f[5]), Long.parseLong(f[6])));
      }
    } catch (RuntimeException malformed) {
      log.add(System.nanoTime() + " harness unparsable line from " + process + ": " + line);
    }
  }

  // The fields of each line that are the process's own clock stamps.
  private static String[] mapped(String[] f, ClockMap map) {
    int[] stamps = switch (f[0]) {
      case "EVENT", "SEND" -> new int[] {1};
      case "STALL" -> new int[] {1, 2};
      case "WRITE" -> new int[] {1, 2, 3};
      default -> new int[0];
    };
    String[] out = f.clone();
    for (int i : stamps) {
      if (i < out.length) {
        out[i] = Long.toString(map.toShared(Long.parseLong(out[i])));
      }
    }
    return out;
  }

  /**
   * mapClock fits {@code process}'s clock to the harness's from its {@code CLOCK} probes ({@link
   * ClockMap#fit}), maps every stamp it logged so far, and every later one as it arrives; call it
   * while the process still runs (its term may still be open), before it is killed or closed.
   * {@code rate} is the rate it was asked to run at and {@code beyondBound} whether that is
   * beyond the elector's maxDriftRate, for the checker ({@link History#clocks()}).
   *
   * @return the fitted map
   * @throws IllegalStateException when too few probes are usable
   */
  public synchronized ClockMap mapClock(String process, double rate, boolean beyondBound) {
    ClockMap map = ClockMap.fit(probes.getOrDefault(process, List.of()));
    clockMaps.put(process, map);
    clockRates.add(new History.ClockRate(process, rate, beyondBound));
    intervals.replaceAll(iv -> !iv.process().equals(process) ? iv
        : new Interval(process, iv.token(), map.toShared(iv.start()), map.toShared(iv.end()), iv.endCause()));
    open.replaceAll((p, o) -> !p.equals(process) ? o : new Open(o.token(), map.toShared(o.start())));
    attempts.replaceAll(a -> !a.process().equals(process) ? a : mapped(a, map));
    sent.replaceAll((k, a) -> !a.process().equals(process) ? a : mapped(a, map));
    stalls.replaceAll(st -> !st.process().equals(process) ? st
        : new Freeze(process, map.toShared(st.from()), map.toShared(st.to())));
    note(String.format(java.util.Locale.ROOT, "%s's clock ran at x%.5f (asked x%s), fitted to %d probes,"
        + " worst residual %.3f ms; its stamps are mapped to the shared clock", process, map.rate(), rate,
        map.probes(), map.worstResidualNanos() / 1e6));
    return map;
  }

  private static Attempt mapped(Attempt a, ClockMap map) {
    return new Attempt(a.process(), a.seq(), a.token(), map.toShared(a.check()), map.toShared(a.send()),
        map.toShared(a.end()), a.outcome(), a.value());
  }

  /** clocks lists the processes whose clocks ran at another rate ({@link #mapClock}). */
  public synchronized List<History.ClockRate> clocks() {
    return new ArrayList<>(clockRates);
  }

  /** killed ends {@code process}'s open term, if any, at {@code nanos}: the process is gone. */
  public synchronized void killed(String process, long nanos) {
    note("killed " + process);
    Open o = open.remove(process);
    if (o != null) {
      intervals.add(new Interval(process, o.token(), o.start(), nanos, "KILLED"));
    }
  }

  /** froze records a SIGSTOP..SIGCONT window of a candidate process. */
  public synchronized void froze(String process, long from, long to) {
    freezes.add(new Freeze(process, from, to));
  }

  /** stalled records a window in which {@code process} (or "harness") did not get the CPU. */
  public synchronized void stalled(String process, long from, long to) {
    stalls.add(new Freeze(process, from, to));
    log.add(System.nanoTime() + " harness stall of " + process + " for " + (to - from) / 1_000_000 + " ms");
  }

  /** stalls returns the measured scheduling stalls so far. */
  public synchronized List<Freeze> stalls() {
    return new ArrayList<>(stalls);
  }

  /** fault records one fault window. */
  public synchronized void fault(FaultWindow f) {
    faults.add(f);
  }

  /** note adds a harness line to the log. */
  public synchronized void note(String text) {
    log.add(System.nanoTime() + " harness " + text);
  }

  /** masters lists the processes whose last event made them MASTER, with their tokens. */
  public synchronized Map<String, Long> masters() {
    Map<String, Long> m = new LinkedHashMap<>();
    open.forEach((p, o) -> m.put(p, o.token()));
    return m;
  }

  /** master is the single MASTER, if exactly one process believes it leads. */
  public synchronized Optional<String> master() {
    return open.size() == 1 ? Optional.of(open.keySet().iterator().next()) : Optional.empty();
  }

  /**
   * awaitWrite waits until {@code process} logs a write attempt after the call, or the timeout
   * passes; returns whether it did.
   */
  public synchronized boolean awaitWrite(String process, long timeoutMillis) throws InterruptedException {
    long seen = attempts.stream().filter(a -> a.process().equals(process)).count();
    long end = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (System.nanoTime() < end) {
      long now = attempts.stream().filter(a -> a.process().equals(process)).count();
      if (now > seen) {
        return true;
      }
      wait(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
    }
    return false;
  }

  /** attemptCount is how many write attempts were logged so far. */
  public synchronized int attemptCount() {
    return attempts.size();
  }

  /** okCountSince counts OK writes sent after {@code nanos}. */
  public synchronized long okCountSince(long nanos) {
    return attempts.stream().filter(a -> a.outcome() == Outcome.OK && a.send() > nanos).count();
  }

  /** intervals returns the closed intervals, plus open ones closed at {@code end} with cause OPEN. */
  public synchronized List<Interval> intervals(long end) {
    List<Interval> all = new ArrayList<>(intervals);
    open.forEach((p, o) -> all.add(new Interval(p, o.token(), o.start(), end, "OPEN")));
    return all;
  }

  /**
   * attempts returns the write attempts so far, including those sent but never answered (the
   * writer was killed with the write in flight): their outcome is unknown, ERROR.
   */
  public synchronized List<Attempt> attempts() {
    List<Attempt> all = new ArrayList<>(attempts);
    all.addAll(sent.values());
    return all;
  }

  /** faults returns the fault windows so far. */
  public synchronized List<FaultWindow> faults() {
    return new ArrayList<>(faults);
  }

  /** freezes returns the freeze windows so far. */
  public synchronized List<Freeze> freezes() {
    return new ArrayList<>(freezes);
  }

  /** writeLog writes every line and harness note, in arrival order, to {@code file}. */
  public synchronized void writeLog(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (String l : log) {
        w.write(l);
        w.write('\n');
      }
    }
  }

  /** excerpt returns the lines that arrived within {@code radius} of {@code nanos} (arrival time), at most max. */
  public synchronized List<String> excerpt(long nanos, long radius, int max) {
    List<String> out = new ArrayList<>();
    for (String l : log) {
      long t = Long.parseLong(l.substring(0, l.indexOf(' ')));
      if (Math.abs(t - nanos) <= radius) {
        // Skip the bulk of routine writes; keep events, harness notes and non-OK writes.
        if (l.contains(" WRITE ") && l.contains(" OK ")) {
          continue;
        }
        out.add(l);
        if (out.size() >= max) {
          break;
        }
      }
    }
    return out;
  }
}
