package dev.leasehold.test.examples;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipEvent.Cause;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * ReportJob is the sample leader-only job of docs/testing.md: while its instance leads, it
 * writes a report line every 250 ms. It takes its elector, executor and sink as parameters, so
 * it runs unchanged in production and in a simulation. {@link #checkingEachWrite} checks the
 * term right before each write; {@link #withPlantedBug} checks it once and writes after a long
 * pause, which a simulation catches.
 */
final class ReportJob {
  /** Sink is where the report goes (a database in production, the simulation's resource here). */
  interface Sink {
    void write(Leadership term, String line);
  }

  private final ScheduledExecutorService executor;
  private final Sink sink;
  private final Duration pauseBeforeWrite;
  private int lines;

  private ReportJob(ScheduledExecutorService executor, Sink sink, Duration pauseBeforeWrite) {
    this.executor = executor;
    this.sink = sink;
    this.pauseBeforeWrite = pauseBeforeWrite;
  }

  /** checkingEachWrite is the correct job: the term is checked in the same step as the write. */
  static ReportJob checkingEachWrite(ScheduledExecutorService executor, Sink sink) {
    return new ReportJob(executor, sink, Duration.ZERO);
  }

  /** withPlantedBug checks the term, then writes 1.5 s later without checking again. */
  static ReportJob withPlantedBug(ScheduledExecutorService executor, Sink sink) {
    return new ReportJob(executor, sink, Duration.ofMillis(1500));
  }

  /** install runs the job during each term of {@code elector}. */
  void install(LeaderElector elector) {
    elector.onLeadershipChanged(e -> {
      if (e.cause() == Cause.ELECTED) {
        Leadership term = e.leadership().orElseThrow();
        ScheduledFuture<?> job = executor.scheduleWithFixedDelay(() -> tick(term), 0, 250, TimeUnit.MILLISECONDS);
        term.whenLost().thenRun(() -> job.cancel(false));
      }
    });
  }

  private void tick(Leadership term) {
    if (!term.isValid()) {
      return;
    }
    String line = term.candidateId() + " line " + (++lines);
    if (pauseBeforeWrite.isZero()) {
      sink.write(term, line);
    } else {
      // The bug: by the time this runs, the term may be over.
      executor.schedule(() -> sink.write(term, line), pauseBeforeWrite.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
