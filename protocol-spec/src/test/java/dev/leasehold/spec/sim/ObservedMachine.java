package dev.leasehold.spec.sim;

import dev.leasehold.ElectorState;
import dev.leasehold.LeaderInfo;
import dev.leasehold.etcd.protocol.ElectionMachine;
import dev.leasehold.etcd.protocol.EtcdCommand;
import dev.leasehold.etcd.protocol.EtcdInput;
import dev.leasehold.etcd.protocol.TimerKind;
import dev.leasehold.runtime.Command;
import dev.leasehold.runtime.Input;
import dev.leasehold.runtime.Machine;
import dev.leasehold.runtime.StoreCall;
import dev.leasehold.spec.sim.Simulation.Inv;
import dev.leasehold.spec.sim.Stats.Stat;
import java.util.ArrayList;
import java.util.List;

/**
 * ObservedMachine is core's real {@link ElectionMachine} as the runtime sees it, with the
 * simulation looking on: it passes every input and every command through unchanged, and
 * records steps, the trace, counters and each published event (for the checks made at
 * publication: fencing order and quiet stability).
 *
 * <p>Only under {@link Mutation#RECEIVE_TIME_DEADLINE} does it change anything: it sends the
 * keep-alive itself ({@link ShadowKeepAlive}) when RENEW fires, and gives the machine its RENEW
 * timer only once the reply arrived, answering the machine's own keep-alive with that reply
 * ({@link ShadowAnswer}). That is a driver fault, which is why it sits outside the runtime.
 *
 * <p>Not thread-safe: the runtime's event loop owns it.
 */
final class ObservedMachine implements Machine {
  /** ShadowKeepAlive is the mutation's own keep-alive, sent when RENEW fires. */
  record ShadowKeepAlive(long leaseId) implements StoreCall {
    @Override
    public Input failed(String reason) {
      return new ShadowReply(new EtcdInput.KeepAliveFailed(-1, false, reason));
    }
  }

  /** ShadowReply is the outcome of a {@link ShadowKeepAlive}. */
  record ShadowReply(Input reply) implements Input {}

  /** ShadowAnswer stands for the machine's keep-alive: the port answers it with {@code answer}. */
  record ShadowAnswer(long op, Input answer) implements StoreCall {
    @Override
    public Input failed(String reason) {
      return new EtcdInput.KeepAliveFailed(op, false, reason);
    }
  }

  private final Proc p;
  private final Engine engine;
  private final Checker checker;
  private final ElectionMachine m;
  private long renewSeq = -1;
  private Input.TimerFired heldRenew;

  ObservedMachine(Proc p, Engine engine, Checker checker, ElectionMachine m) {
    this.p = p;
    this.engine = engine;
    this.checker = checker;
    this.m = m;
  }

  @Override
  public List<Command> step(Input in, long now) {
    if (p.mutation == Mutation.RECEIVE_TIME_DEADLINE) {
      if (in instanceof Input.TimerFired tf && tf.timer() == TimerKind.RENEW && heldRenew == null
          && m.leaseId() != 0 && renewSeq == tf.seq()) {
        heldRenew = tf;
        return new ArrayList<>(List.of(new ShadowKeepAlive(m.leaseId())));
      }
      if (in instanceof ShadowReply r) {
        Input.TimerFired tf = heldRenew;
        heldRenew = null;
        List<Command> out = new ArrayList<>();
        if (tf == null) {
          return out;
        }
        for (Command c : observe(tf, now)) {
          out.add(c instanceof EtcdCommand.KeepAlive k ? new ShadowAnswer(k.op(), answer(k.op(), r.reply())) : c);
        }
        return out;
      }
    }
    return observe(in, now);
  }

  private static Input answer(long op, Input shadow) {
    if (shadow instanceof EtcdInput.KeepAliveAcked a) {
      return new EtcdInput.KeepAliveAcked(op, a.ttlSeconds(), a.raftTerm());
    }
    return new EtcdInput.KeepAliveFailed(op, ((EtcdInput.KeepAliveFailed) shadow).leaseNotFound(), "shadow");
  }

  private List<Command> observe(Input in, long now) {
    ElectorState before = m.role();
    if (in instanceof EtcdInput.KeepAliveAcked a) {
      p.lastAckTerm = a.raftTerm();
    }
    if (in instanceof EtcdInput.ConfirmRead r && r.raftTerm() != p.lastAckTerm && before == ElectorState.MASTER) {
      engine.stats.inc(Stat.TERM_MISMATCH_RETRIES);
    }
    List<Command> out;
    try {
      out = m.step(in, now);
    } catch (RuntimeException e) {
      checker.failed(Inv.NO_EXCEPTION, p + ": the machine threw on " + in, e);
      throw e;
    }
    engine.steps++;
    if (engine.tracing()) {
      engine.note(String.format("%-5s %-9s -> %-9s in=%s out=%s", p.name, before, m.role(), in, out));
    }
    count(in, before);
    for (Command c : out) {
      if (c instanceof Command.SetTimer t && t.timer() == TimerKind.RENEW) {
        renewSeq = t.seq();
      } else if (c instanceof Command.Publish e) {
        checker.published(p, e);
      }
    }
    return out;
  }

  private void count(Input in, ElectorState before) {
    ElectorState after = m.role();
    if (in instanceof EtcdInput.CampaignLost && before == ElectorState.CANDIDATE && after == ElectorState.MASTER) {
      engine.stats.inc(Stat.RETRIED_CAS_FOUND_OWN_KEY);
    }
    if (in instanceof EtcdInput.CampaignWon && before == ElectorState.CANDIDATE && after != ElectorState.MASTER) {
      engine.stats.inc(Stat.COMMIT_TOO_LATE);
    }
    if (before == ElectorState.STOPPED && in instanceof EtcdInput.LeaseGranted) {
      engine.stats.inc(Stat.GRANT_REVOKED_AFTER_CLOSE);
    }
    if (in instanceof EtcdInput.CampaignFailed f && p.appliedCampaigns.contains(f.op())) {
      engine.stats.inc(Stat.CAMPAIGN_APPLIED_BUT_FAILED);
    }
    if (in instanceof EtcdInput.HandoverFailed f && p.appliedHandovers.contains(f.op())) {
      engine.stats.inc(Stat.HANDOVER_APPLIED_BUT_FAILED);
    }
    if (in instanceof EtcdInput.PollFailed || in instanceof EtcdInput.GrantFailed
        || in instanceof EtcdInput.CampaignFailed || in instanceof EtcdInput.ConfirmFailed
        || in instanceof EtcdInput.KeepAliveFailed || in instanceof EtcdInput.EnlistFailed
        || in instanceof EtcdInput.HandoverFailed) {
      engine.stats.inc(Stat.REQUESTS_FAILED);
    }
  }

  @Override
  public ElectorState role() {
    return m.role();
  }

  @Override
  public LeaderInfo leader() {
    return m.leader();
  }

  @Override
  public long deadline() {
    return m.deadline();
  }

  @Override
  public String transferUnsupported() {
    return m.transferUnsupported();
  }

  @Override
  public long renewalSentAt() {
    return m.renewalSentAt();
  }
}
