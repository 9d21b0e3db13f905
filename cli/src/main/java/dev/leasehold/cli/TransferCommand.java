package dev.leasehold.cli;

import dev.leasehold.Durations;
import dev.leasehold.Participant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.OptionsUtil;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * TransferCommand is {@code leasehold transfer}: it asks the leader of an etcd election to hand
 * its term to a named candidate of the queue (PROTOCOL.md §4.5, "Transfer"), by writing the
 * election's transfer request key, which the leader watches and carries out in its fenced
 * handover. It never writes the election key itself: only the leader may end its own term, after
 * it has stepped down, so that no two instances act as leader at once.
 *
 * <p>Not thread-safe: picocli fills it in, then {@link #call()} runs once.
 */
@Command(
    name = "transfer",
    mixinStandardHelpOptions = true,
    header = "Ask the leader to hand its term to a named candidate (etcd).",
    description = {
        "Ask the leader of --key to hand its term to the candidate --to, which must be waiting in the "
            + "election's queue (a live candidate with a standby lease), and wait until it leads. The request "
            + "is a key the leader watches (<key>/candidates/~transfer), put on a lease of this command's own "
            + "that ends when it does, so nothing stays behind. The leader steps down first and then hands the "
            + "key over in one transaction fenced on its term's token; the new leader's fencing token is higher."},
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the candidate leads (also when it led already)", "2:bad arguments",
        "3:refused: no leader, or the candidate is not waiting in the queue (the message lists who is)",
        "78:configuration error: etcd refused a call (credentials, permissions)",
        "123:etcd did not answer",
        "124:the leader did not hand over within --timeout (see its log)"})
final class TransferCommand implements Callable<Integer> {
  /** REFUSED is the exit code of a transfer that cannot be asked for: no leader, or a target not queued. */
  static final int REFUSED = 3;

  // How long the wait for the new leader trusts the watch before it reads the key anyway.
  private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  @Spec
  CommandSpec spec;

  @Mixin
  StoreOptions store;

  @Option(names = "--key", required = true, paramLabel = "KEY", description = "the election key")
  String key;

  @Option(names = "--to", required = true, paramLabel = "ID", description = "the candidate id to lead next")
  String to;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = Seconds.class, defaultValue = "10s",
      description = "how long to wait for the candidate to lead (default: ${DEFAULT-VALUE})")
  Duration timeout;

  @Override
  public Integer call() throws InterruptedException {
    validate();
    long start = System.nanoTime();
    long end = start + timeout.toNanos();
    String where = store.where();
    String within = " within " + Durations.seconds(timeout);
    try (Client client = EtcdClients.build(store)) {
      ByteSequence k = bytes(key);
      ByteSequence prefix = bytes(Participant.prefix(key));
      GetResponse leader = EtcdClients.await(client.getKVClient().get(k), end, where, "get " + key, within);
      if (leader.getKvs().isEmpty()) {
        return refuse("no leader of " + key + " to transfer from");
      }
      KeyValue held = leader.getKvs().get(0);
      String from = text(held.getValue());
      if (from.equals(to)) {
        return said(to + " leads " + key + " already (fencing token " + held.getModRevision() + ")");
      }
      GetResponse queue = EtcdClients.await(client.getKVClient().get(prefix,
          GetOption.builder().withRange(OptionsUtil.prefixEndOf(prefix)).build()), end, where,
          "get the queue " + Participant.prefix(key), within);
      List<String> waiting = queue.getKvs().stream()
          .filter(kv -> Participant.leaseOf(key, text(kv.getKey())) != 0 && kv.getLease() != held.getLease())
          .map(kv -> text(kv.getValue())).sorted().toList();
      if (!waiting.contains(to)) {
        return refuse(to + " is not waiting in the queue of " + key + " (it shows " + waiting + "); start it with"
            + " a standby lease (the default) and try again");
      }
      long ttl = Math.max(2, (timeout.toMillis() + 999) / 1000 + 2);
      long lease = EtcdClients.await(client.getLeaseClient().grant(ttl), end, where, "grant a lease", within).getID();
      Semaphore changed = new Semaphore(0);
      Watch.Watcher watcher = null;
      try {
        watcher = client.getWatchClient().watch(k,
            WatchOption.builder().withRequireLeader(true).withRevision(leader.getHeader().getRevision() + 1).build(),
            Watch.listener(response -> changed.release(), error -> changed.release()));
        EtcdClients.await(client.getKVClient().put(bytes(Participant.transferRequestKey(key)), bytes(to),
            PutOption.builder().withLeaseId(lease).build()), end, where,
            "put " + Participant.transferRequestKey(key), within);
        Optional<KeyValue> now = awaitLeader(client, k, changed, end, where, within);
        if (now.isEmpty()) {
          spec.commandLine().getErr().println("leasehold: " + from + " did not hand its term to " + to + within
              + "; its log says why ('a transfer request was not carried out'), or it runs a version without"
              + " transfer requests");
          spec.commandLine().getErr().flush();
          return Leasehold.NOT_ACQUIRED;
        }
        return said(to + " leads " + key + " (fencing token " + now.get().getModRevision() + "), handed over by " + from
            + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
      } finally {
        if (watcher != null) {
          watcher.close();
        }
        withdraw(client, lease, ttl);
      }
    }
  }

  // The request goes with its lease, answered or not; if etcd does not answer, with its TTL.
  private void withdraw(Client client, long lease, long ttl) throws InterruptedException {
    try {
      client.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      spec.commandLine().getErr().println("leasehold: the request's lease " + Long.toHexString(lease)
          + " was not revoked (" + e + "); etcd deletes the request with it within " + ttl + " s");
      spec.commandLine().getErr().flush();
    }
  }

  // Reads the key whenever its watch says it changed (and at least every second, in case the watch
  // broke) until it names the target, or the time is up. The watch is opened before the request is
  // put, from the revision of the first read, so no change since then goes unseen.
  private Optional<KeyValue> awaitLeader(Client client, ByteSequence k, Semaphore changed, long end, String where,
      String within) throws InterruptedException {
    while (System.nanoTime() < end) {
      changed.drainPermits();
      GetResponse r = EtcdClients.await(client.getKVClient().get(k), end, where, "get " + key, within);
      if (!r.getKvs().isEmpty() && text(r.getKvs().get(0).getValue()).equals(to)) {
        return Optional.of(r.getKvs().get(0));
      }
      long left = end - System.nanoTime();
      changed.tryAcquire(Math.max(0, Math.min(left, RECHECK_NANOS)), TimeUnit.NANOSECONDS);
    }
    return Optional.empty();
  }

  private void validate() {
    store.validate();
    if (!store.isEtcd()) {
      throw new ParameterException(spec.commandLine(), "transfer needs etcd (--endpoints): the SQL backend keeps no"
          + " queue of live candidates to hand a term to");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new ParameterException(spec.commandLine(), "--timeout must be > 0 seconds, but was " + Durations.seconds(timeout));
    }
    if (key.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--key must be non-blank, but was \"" + key + "\"");
    }
    if (to.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--to must name a candidate, but was \"" + to + "\"");
    }
    // Core reads and checks the TLS files and credentials, naming the option.
    store.elector(Map.of("leasehold.key", key));
  }

  private int refuse(String why) {
    spec.commandLine().getErr().println("leasehold: transfer refused: " + why);
    spec.commandLine().getErr().flush();
    return REFUSED;
  }

  private int said(String line) {
    spec.commandLine().getOut().println(line);
    spec.commandLine().getOut().flush();
    return 0;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static String text(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
