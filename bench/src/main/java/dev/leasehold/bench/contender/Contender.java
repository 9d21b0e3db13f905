package dev.leasehold.bench.contender;

/**
 * Contender is one candidate of one election implementation, driven the same way for every
 * implementation so the bench can compare them: start campaigning, give leadership up, stop.
 *
 * <p>Implementations report through a {@link Sink}; the times they report are
 * {@link System#nanoTime()} taken in the callback a user of that library would get, which is
 * comparable between processes on one host.
 */
public interface Contender extends AutoCloseable {
  /** start begins campaigning. */
  void start();

  /** resign gives leadership up if held and stays a candidate for later terms. */
  void resign();

  /**
   * knowsLeader tells whether this candidate leads or knows who does, so that a handover measured
   * from now finds it following (a Leasehold follower then waits on the leader's wake-up). A
   * contender that cannot tell answers true.
   */
  default boolean knowsLeader() {
    return true;
  }

  /** close gives leadership up if held, releases the lease and stops. */
  @Override
  void close();

  /** Sink receives what a contender's user would be told. Must be thread-safe. */
  interface Sink {
    /**
     * elected is called when this candidate becomes leader; {@code sourceNanoTime} is when the
     * library itself decided (Leasehold's event time), or equals {@code nanoTime}.
     */
    void elected(long nanoTime, long sourceNanoTime);

    /** lost is called when this candidate stops being leader, with a short cause. */
    void lost(long nanoTime, String cause);
  }
}
