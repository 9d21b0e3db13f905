package dev.leasehold.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.ElectorState;
import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Term;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/** SqlMachineHarness drives one SqlMachine step by step on a test-moved clock. */
class SqlMachineHarness {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;
  // TTL 2 s, margin 200 ms, drift 1 %: deadline window 2 s × 0.99 − 0.2 s = 1.78 s; observed
  // wait 2 s × 1.01 = 2.02 s; renew every 333 ms; poll 1 s; backoff 100 ms .. 1 s; hold-off 2 s.
  static final SqlConfig CONFIG =
      new SqlConfig("me", "leasehold_lease", "e1", 2 * S, 200 * MS, 0.01, 1 * S, 100 * MS, 1 * S, 2 * S);
  static final long WINDOW = 1_780 * MS;
  static final long OBSERVED_WAIT = 2_020 * MS;
  static final long TTL_US = 2_000_000;
  static final HolderToken OTHER = new HolderToken("0123456789abcdef0123456789abcdef");

  final SqlMachine m;
  long now = 1_000 * S;
  long session = 1;
  List<Command> last = List.of();
  // The term the last ELECTED handed over.
  Term term;

  SqlMachineHarness() {
    this(1);
  }

  SqlMachineHarness(long seed) {
    m = new SqlMachine(CONFIG, new SplittableRandom(seed));
  }

  List<Command> step(Input in) {
    last = m.step(in, now);
    for (Command.Publish p : all(Command.Publish.class)) {
      if (p.cause() == Cause.ELECTED) {
        term = p.term();
      }
    }
    return last;
  }

  /** holder is the holder token of the last term elected. */
  HolderToken holder() {
    return ((SqlTerm) term.detail()).holder();
  }

  <T extends Command> T only(Class<T> type) {
    List<T> found = all(type);
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  <T extends Command> List<T> all(Class<T> type) {
    return last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  <T extends Command> boolean has(Class<T> type) {
    return last.stream().anyMatch(type::isInstance);
  }

  int indexOf(Class<?> type) {
    for (int i = 0; i < last.size(); i++) {
      if (type.isInstance(last.get(i))) {
        return i;
      }
    }
    return -1;
  }

  List<Cause> published() {
    return all(Command.Publish.class).stream().map(Command.Publish::cause).collect(Collectors.toList());
  }

  Command.SetTimer timer(SqlTimer kind) {
    return all(Command.SetTimer.class).stream()
        .filter(t -> t.timer() == kind)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  void fire(Command.SetTimer t) {
    now = Math.max(now, t.atNanos());
    step(new Input.TimerFired(t.timer(), t.seq()));
  }

  static LeaseRow held(HolderToken h, long epoch, long version, boolean expired) {
    return new LeaseRow(h, "other", epoch, version, TTL_US, expired);
  }

  static LeaseRow released(long epoch, long version) {
    return new LeaseRow(null, "other", epoch, version, TTL_US, true);
  }

  /** answerRead answers the one Read in the last step with {@code row}. */
  void answerRead(LeaseRow row) {
    step(new SqlInput.RowRead(only(SqlCommand.Read.class).op(), session, row));
  }

  /** elect drives a fresh machine to MASTER over an empty table; returns the take's send time. */
  long elect() {
    step(new Input.Start());
    answerRead(null);
    SqlCommand.Lock lock = only(SqlCommand.Lock.class);
    step(new SqlInput.Locked(lock.op(), session, true));
    long sentAt = now;
    SqlCommand.Take take = only(SqlCommand.Take.class);
    now += 5 * MS;
    step(new SqlInput.Taken(take.op(), session, true));
    assertEquals(ElectorState.MASTER, m.role());
    return sentAt;
  }
}
