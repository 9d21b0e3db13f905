package dev.leasehold.test;

import java.util.List;

/**
 * SimulationFailure is a {@link Simulation} that found a schedule breaking a check: the
 * message names the check, the schedule's seed, a one-line command that replays it, and the
 * run's last history lines.
 *
 * <p>Immutable.
 */
public final class SimulationFailure extends AssertionError {
  private static final long serialVersionUID = 1L;

  /** The failing schedule's seed. */
  private final long seed;
  /** The failing schedule's index, from 0. */
  private final int schedule;
  /** The command line that replays the failing schedule. */
  private final String replay;
  private final transient List<String> history;

  SimulationFailure(String what, int schedule, int schedules, long seed, String replay, List<String> history,
      long historyLines) {
    super("Leasehold simulation failed on schedule " + (schedule + 1) + " of " + schedules
        + " (seed " + seed + "): " + what + "\nReplay: " + replay + "\nHistory (last "
        + history.size() + " of " + historyLines + " lines):\n" + String.join("\n", history));
    this.seed = seed;
    this.schedule = schedule;
    this.replay = replay;
    this.history = List.copyOf(history);
  }

  /**
   * seed is the failing schedule's seed.
   *
   * @return the seed, which {@code -Dleasehold.simulation.seed} replays
   */
  public long seed() {
    return seed;
  }

  /**
   * schedule is the failing schedule's index (0 for the first).
   *
   * @return the schedule's index, from 0
   */
  public int schedule() {
    return schedule;
  }

  /**
   * replayCommand is a command line that runs the failing schedule alone.
   *
   * @return the replay command, ending with the seed
   */
  public String replayCommand() {
    return replay;
  }

  /**
   * history is the failing run's last lines.
   *
   * @return the last lines of the history, oldest first
   */
  public List<String> history() {
    return history;
  }
}
