package dev.leasehold.test;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * SimulatedResource stands for what the user's leader-only code writes to (a database, a
 * queue, a file), shared by every instance of a {@link Schedule}. It records each write with
 * its term and time, and checks it:
 *
 * <ul>
 *   <li>{@link #write} is an unfenced write: the simulation fails when it lands while its term
 *       is not the store's current term (another instance may already lead): the leader-only
 *       sections of two terms overlap.
 *   <li>{@link #writeFenced} is a fenced write: it lands only if its term is still the store's
 *       current one, compared in the same step as the write, the way {@code EtcdFencing.guard}
 *       compares the key's revision in the write's transaction; a stale one is refused and is no
 *       failure.
 * </ul>
 *
 * <p>Not thread-safe: the simulation's one thread runs the code that writes.
 */
public final class SimulatedResource {
  private final VirtualStore store;
  private final History history;
  private final boolean checked;
  private final List<Write> writes = new ArrayList<>();
  private String violation;

  /**
   * Write is one write that landed: the writer's candidate id and fencing token, the value, and
   * the virtual time since the schedule began.
   */
  public record Write(String candidateId, long token, Object value, Duration at, boolean fenced) {}

  SimulatedResource(VirtualStore store, History history, boolean checked) {
    this.store = store;
    this.history = history;
    this.checked = checked;
  }

  /**
   * write lands {@code value} unfenced, on behalf of {@code term}; the simulation fails if the
   * term is no longer the store's current one (unless its check is turned off).
    *
    * @param term the term the write is made for; its token and validity are recorded
    * @param value what is written; any object, kept for the history
   */
  public void write(Leadership term, Object value) {
    Objects.requireNonNull(term, "term");
    Optional<LeaderInfo> current = store.local().leaderOf(term.electionKey());
    boolean stale = current.map(l -> l.fencingToken() != term.fencingToken()).orElse(true);
    writes.add(new Write(term.candidateId(), term.fencingToken(), value, store.time().elapsed(), false));
    history.add(term.candidateId(), "write " + value + " (token " + term.fencingToken() + ")"
        + (stale ? "  <-- outside its term: " + current.map(l -> "the store's holder is "
            + l.candidateId() + " with token " + l.fencingToken()).orElse("the key is gone") : ""));
    if (stale && checked && violation == null) {
      violation = term.candidateId() + " wrote " + value + " with token " + term.fencingToken()
          + " at " + History.fmt(store.time().nanoTime()) + " while "
          + current.map(l -> l.candidateId() + " held the key with token " + l.fencingToken())
              .orElse("nobody held the key (its lease had expired)");
    }
  }

  /**
   * writeFenced lands {@code value} only if {@code term} is still the store's current term,
   * and returns whether it landed.
    *
    * @param term the term the write is made for
    * @param value what is written
    * @return true when the write landed; false when the term was no longer current
   */
  public boolean writeFenced(Leadership term, Object value) {
    Objects.requireNonNull(term, "term");
    Optional<LeaderInfo> current = store.local().leaderOf(term.electionKey());
    boolean landed = current.map(l -> l.fencingToken() == term.fencingToken()).orElse(false);
    if (landed) {
      writes.add(new Write(term.candidateId(), term.fencingToken(), value, store.time().elapsed(), true));
    }
    history.add(term.candidateId(), "fenced write " + value + " (token " + term.fencingToken() + ")"
        + (landed ? "" : ": refused, the term is over"));
    return landed;
  }

  /**
   * writes are the writes that landed, in order.
   *
   * @return the landed writes, oldest first; a copy
   */
  public List<Write> writes() {
    return List.copyOf(writes);
  }

  /** violation is the first unfenced write outside its term, or null. */
  String violation() {
    return violation;
  }
}
