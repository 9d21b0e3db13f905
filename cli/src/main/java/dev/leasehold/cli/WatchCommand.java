package dev.leasehold.cli;

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
        "Print the leader of --key now and then one line per change of leader (a new term, or no",
        "leader), with a timestamp, until interrupted. Read-only: it never campaigns. Changes closer",
        "together than one read may show as one. While the store does not answer it says so once",
        "on stderr and keeps trying."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"130/143:interrupted (SIGINT/SIGTERM)", "2:bad arguments"})
final class WatchCommand extends ReadCommand {
  private static final Logger log = LoggerFactory.getLogger("leasehold");

  @Option(names = "--interval", paramLabel = "DURATION", converter = Seconds.class, defaultValue = "1",
      description = "poll interval besides the etcd watch (default: ${DEFAULT-VALUE} s)")
  Duration interval;

  @Override
  public Integer call() throws InterruptedException {
    try (LeaderReader reader = reader()) {
      Semaphore wake = new Semaphore(0);
      reader.onChange(wake::release);
      LeaderReader.Snapshot shown = null;
      String failing = null;
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
          if (!e.getMessage().equals(failing)) {
            log.warn("{}; retrying", e.getMessage());
            failing = e.getMessage();
          }
          continue;
        }
        if (failing != null) {
          log.info("the store answers again");
          failing = null;
        }
        if (shown == null || !now.sameTerm(shown)) {
          print(now);
          shown = now;
        }
      }
    }
  }

  private void print(LeaderReader.Snapshot s) {
    spec.commandLine().getOut().println(format(s, Instant.now()));
    spec.commandLine().getOut().flush();
  }
}
