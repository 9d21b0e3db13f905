package dev.leasehold.test.engine;

/**
 * SimClock is a candidate's monotonic clock: piecewise linear in true time, with an arbitrary
 * offset and a rate that a DRIFT fault may change. Not thread-safe.
 */
public final class SimClock {
  private long baseTrue;
  private long baseLocal;
  private double rate;

  /** SimClock reads {@code baseLocal} at true time 0 and runs at {@code rate}. */
  public SimClock(long baseLocal, double rate) {
    this.baseLocal = baseLocal;
    this.rate = rate;
  }

  /** local is the clock's reading at true time {@code t}. */
  public long local(long t) {
    return baseLocal + (long) Math.floor((t - baseTrue) * rate);
  }

  /** trueAt is the earliest true time, not before {@code now}, when the clock reads {@code l}. */
  public long trueAt(long l, long now) {
    if (local(now) >= l) {
      return now;
    }
    long t = baseTrue + (long) Math.ceil((l - baseLocal) / rate);
    while (local(t) < l) {
      t++;
    }
    while (t - 1 > now && local(t - 1) >= l) {
      t--;
    }
    return Math.max(t, now);
  }

  /** setRate changes the clock's rate from true time {@code now} on. */
  public void setRate(long now, double r) {
    baseLocal = local(now);
    baseTrue = now;
    rate = r;
  }

  /** rate is the clock's current rate. */
  public double rate() {
    return rate;
  }
}
