package dev.leasehold.runtime;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import java.util.List;
import java.util.Objects;

/**
 * RoleMachine is what every machine that publishes shares: its role and leader are its {@link
 * Roles}', the choke point every move goes through, and each step starts its {@link
 * StepEffects} and its {@link Reachability} afresh before the machine's own {@link #apply}.
 * The etcd machine, a session's election and the SQL machine extend it; each gives its table,
 * its effects, its outage count and its hook for a role left.
 *
 * <p>Not thread-safe: the runtime's event loop owns an instance.
 */
public abstract class RoleMachine implements Machine {
  private final StepEffects<?> fx;
  private final Reachability reach;
  private final Roles roles;

  /**
   * RoleMachine moves through {@code table} with a choke point that publishes into {@code fx}'s
   * step, reports what {@code reach} decides and runs {@link #left} on every role left.
   *
   * @param table the machine's legal moves
   * @param fx the effects of the step being run
   * @param reach the machine's count of failed calls
   */
  protected RoleMachine(Transitions table, StepEffects<?> fx, Reachability reach) {
    this.fx = Objects.requireNonNull(fx, "fx");
    this.reach = Objects.requireNonNull(reach, "reach");
    // The hook runs only in a step, once the subclass is built.
    this.roles = new Roles(table, fx, reach, this::left);
  }

  /**
   * roles is the machine's choke point.
   *
   * @return the choke point every move of the role goes through
   */
  protected final Roles roles() {
    return roles;
  }

  /**
   * step starts the step's command list and notes the input's failure reason, has {@link
   * #apply} handle the input at monotonic time {@code now}, and returns the commands, in order.
   */
  @Override
  public final List<Command> step(Input input, long now) {
    Objects.requireNonNull(input, "input");
    fx.begin();
    reach.begin(input);
    apply(input, now);
    return fx.commands();
  }

  /**
   * apply handles one input; its commands go to the machine's effects.
   *
   * @param input the step's input
   * @param now the monotonic time of the step, in nanoseconds
   */
  protected abstract void apply(Input input, long now);

  /**
   * left is the machine's hook for a role left, which {@link Roles} runs after the role changed
   * from {@code from} to {@code to} and before any event of the move: it cancels that role's
   * timers and forgets its calls in flight.
   *
   * @param from the role left
   * @param to the role entered
   */
  protected abstract void left(ElectorState from, ElectorState to);

  /** role is the current role. */
  @Override
  public final ElectorState role() {
    return roles.role();
  }

  /** leader is the leader last seen (this instance while MASTER, with its term's token), or null. */
  @Override
  public final LeaderInfo leader() {
    return roles.leader();
  }
}
