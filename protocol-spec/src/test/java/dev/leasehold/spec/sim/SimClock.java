package dev.leasehold.spec.sim;

/**
 * SimClock is a candidate's monotonic clock: piecewise linear in true time, with an arbitrary
 * offset and a rate that a DRIFT fault may change. Not thread-safe.
 */
final class SimClock {
  private long baseTrue;
  private long baseLocal;
  private double rate;

  SimClock(long baseLocal, double rate) {
    this.baseLocal = baseLocal;
    this.rate = rate;
  }

  long local(long t) {
    return baseLocal + (long) Math.floor((t - baseTrue) * rate);
  }

  /** trueAt is the earliest true time, not before {@code now}, when the clock reads {@code l}. */
  long trueAt(long l, long now) {
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

  void setRate(long now, double r) {
    baseLocal = local(now);
    baseTrue = now;
    rate = r;
  }

  double rate() {
    return rate;
  }
}
