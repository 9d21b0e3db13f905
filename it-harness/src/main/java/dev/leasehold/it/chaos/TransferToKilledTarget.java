package dev.leasehold.it.chaos;

import dev.leasehold.Participant;
import dev.leasehold.it.chaos.History.TargetKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * TransferToKilledTarget is a transfer whose target dies mid-transfer (issue 28): the harness
 * puts the election's transfer request key naming a follower, as {@code leasehold transfer}
 * does, and SIGKILLs that follower a random 0–50 ms later. The MASTER steps down and hands the
 * key to the target's standby lease (its participant key outlives the process until its lease
 * expires), so the key is left on a lease nobody renews: it must go within one TTL, and another
 * candidate must lead within the liveness bound, with no overlap and no stale write accepted.
 * The MASTER's TRANSFERRED is a loss it chose, not a spurious one. Recover restarts the target
 * and withdraws the request (its lease is revoked). Not thread-safe.
 */
final class TransferToKilledTarget implements Fault {
  private ChaosContext.Slot target;
  private long requestLease;

  @Override
  public String name() {
    return "transfer-to-killed-target";
  }

  @Override
  public TargetKind kind() {
    return TargetKind.CANDIDATE;
  }

  @Override
  public String inject(ChaosContext ctx, Random random) throws Exception {
    ChaosContext.Slot master = ctx.masterSlot();
    List<ChaosContext.Slot> others = ctx.slots().stream().filter(s -> s != master).toList();
    target = others.get(random.nextInt(others.size()));
    String process = target.process();
    Client admin = ctx.store(EtcdStore.class).adminClient();
    requestLease = admin.getLeaseClient().grant(Math.max(5, 3 * ctx.ttlMillis() / 1000))
        .get(5, TimeUnit.SECONDS).getID();
    ctx.recorder().note("transfer request to " + process + ", which is killed mid-transfer");
    admin.getKVClient().put(bytes(Participant.transferRequestKey(ctx.electionKey())), bytes(process),
        PutOption.builder().withLeaseId(requestLease).build()).get(5, TimeUnit.SECONDS);
    Thread.sleep(random.nextInt(51));
    ctx.kill(target);
    return process;
  }

  @Override
  public Duration hold(ChaosContext ctx, Random random) {
    // Past the TTL: the key handed to the dead target's lease must have gone by then.
    return Duration.ofMillis(ctx.ttlMillis() + Faults.between(random, 200, 1000));
  }

  @Override
  public void recover(ChaosContext ctx) throws Exception {
    ctx.store(EtcdStore.class).adminClient().getLeaseClient().revoke(requestLease).get(5, TimeUnit.SECONDS);
    ctx.restart(target);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
