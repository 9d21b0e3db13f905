package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.TargetKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

/**
 * HealthFlapping makes the MASTER's health check flap (issue 28): for the hold, its health file
 * (see {@link ChaosContext#healthFile}) appears and disappears in spells of 20–400 ms, some
 * shorter than the check's threshold (2 answers, 100 ms apart: a flap that must move nothing),
 * some long enough that it yields to a healthy candidate and leaves the queue, then rejoins.
 * Nothing else is broken, so leadership must stay with one candidate at a time, with no stale
 * write accepted and a leader within the liveness bound; a loss by UNHEALTHY is one the elector
 * chose, not a spurious one. The spells run on the harness's thread during {@link #hold}, so
 * inject starts them and recover ends them with the file gone. Not thread-safe.
 */
final class HealthFlapping implements Fault {
  private Path file;

  @Override
  public String name() {
    return "health-flapping";
  }

  @Override
  public TargetKind kind() {
    return TargetKind.CANDIDATE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws Exception {
    ChaosContext.Slot master = ctx.masterSlot();
    file = ctx.healthFile(master);
    ctx.recorder().note("health of " + master.process() + " flaps");
    Thread flapper = new Thread(() -> flap(new Random(random.nextLong())), "health-flapping");
    flapper.setDaemon(true);
    running = flapper;
    flapper.start();
    return master.process();
  }

  private volatile Thread running;

  private void flap(Random random) {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        Files.writeString(file, "unhealthy\n");
        Thread.sleep(20 + random.nextInt(381));
        Files.deleteIfExists(file);
        Thread.sleep(20 + random.nextInt(381));
      }
    } catch (InterruptedException stop) {
      Thread.currentThread().interrupt();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    return Duration.ofMillis(Faults.between(random, 2000, 4000));
  }

  @Override
  public void recover(ChaosContext ctx) throws Exception {
    Thread t = running;
    if (t != null) {
      t.interrupt();
      t.join(5_000);
    }
    Files.deleteIfExists(file);
  }
}
