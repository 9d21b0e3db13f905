package dev.leasehold.etcd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leasehold.LeadershipEvent.Cause;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** MachineSteps drives one machine step by step on a made-up clock and reads what it asked for. */
final class MachineSteps {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  private final Machine m;
  long now = 1_000 * S;
  List<Command> last = List.of();
  final List<Command> all = new ArrayList<>();

  MachineSteps(Machine m) {
    this.m = m;
  }

  List<Command> step(Input in) {
    last = m.step(in, now);
    all.addAll(last);
    return last;
  }

  <T extends Command> T only(Class<T> type) {
    List<T> found = last.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + last);
    return found.get(0);
  }

  boolean has(Class<? extends Command> type) {
    return last.stream().anyMatch(type::isInstance);
  }

  List<Cause> published() {
    return last.stream().filter(Command.Publish.class::isInstance)
        .map(c -> ((Command.Publish) c).cause()).collect(Collectors.toList());
  }

  /** timer is the last arming of {@code kind} in the last step. */
  Command.SetTimer timer(Enum<?> kind) {
    return last.stream().filter(c -> c instanceof Command.SetTimer t && t.timer() == kind)
        .map(Command.SetTimer.class::cast).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " timer in " + last));
  }

  /** fire moves the clock to the timer and fires it. */
  List<Command> fire(Command.SetTimer t) {
    now = Math.max(now, t.atNanos());
    return step(new Input.TimerFired(t.timer(), t.seq()));
  }
}
