package dev.leasehold.cli;

import dev.leasehold.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * WatchCommand is {@code leasehold watch}: a line for the current leader, then one per change
 * of leader, until interrupted; it keeps trying while the store does not answer. On etcd a watch on the key wakes it at once; every backend also
 * polls, so a silent watch costs at most one interval.
 *
 * <p>Not thread-safe: picocli fills it in, then {@link #call()} runs once.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    header = "Print one line per change of leader until interrupted.",
    description = {
        "Print the leader of --key now and then one line per change of leader (a new term, or no "
            + "leader), with a timestamp, until interrupted. Read-only: it never campaigns. Changes closer "
            + "together than one read may show as one. While the store does not answer, it says so on "
            + "stderr (naming its host and port), again each minute the outage lasts, and once more when "
            + "the store answers again, with how long it did not."},
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"130/143:interrupted (SIGINT/SIGTERM)", "2:bad arguments",
        "78:configuration error: the store refused the read (credentials, permissions, a missing table)"})
final class WatchCommand extends ReadCommand {
  private static final Logger log = LoggerFactory.getLogger("leasehold");
  /** REMIND is how often an outage that goes on is reported again. */
  static final Duration REMIND = Duration.ofMinutes(1);

  @Option(names = "--interval", paramLabel = "DURATION", converter = Seconds.class, defaultValue = "1s",
      description = "poll interval besides the etcd watch (default: ${DEFAULT-VALUE})")
  Duration interval;

  @Override
  public Integer call() throws InterruptedException {
    try (LeaderReader reader = reader()) {
      Semaphore wake = new Semaphore(0);
      reader.onChange(wake::release);
      LeaderReader.Snapshot shown = null;
      String failing = null;
      long failingSince = 0;
      long remindAt = 0;
      boolean first = true;
      while (true) {
        if (!first) {
          wake.tryAcquire(interval.toNanos(), TimeUnit.NANOSECONDS);
          wake.drainPermits();
        }
        first = false;
        LeaderReader.Snapshot now;
        try {
          now = reader.read(timeout);
        } catch (Leasehold.StoreUnreachableException e) {
          long t = System.nanoTime();
          if (failing == null) {
            failingSince = t;
            remindAt = t + REMIND.toNanos();
            log.warn("{}; retrying until it answers", e.getMessage());
          } else if (!e.getMessage().equals(failing)) {
            log.warn("{}; still retrying", e.getMessage());
          } else if (t - remindAt >= 0) {
            remindAt = t + REMIND.toNanos();
            log.warn("still no answer after {}: {}", since(failingSince), e.getMessage());
          }
          failing = e.getMessage();
          continue;
        }
        if (failing != null) {
          log.info("{} answers again, after {} without an answer", store.where(), since(failingSince));
          failing = null;
        }
        if (shown == null || !now.sameTerm(shown)) {
          print(now);
          shown = now;
        }
      }
    }
  }

  private static String since(long nanoTime) {
    return Durations.seconds(Duration.ofMillis((System.nanoTime() - nanoTime) / 1_000_000));
  }

  private void print(LeaderReader.Snapshot s) {
    spec.commandLine().getOut().println(format(s, Instant.now()));
    spec.commandLine().getOut().flush();
  }
}
