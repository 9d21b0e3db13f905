package dev.leasehold.cli;

import dev.leasehold.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * ReadCommand holds what {@code status} and {@code watch} share: the store, the key, the output
 * format, and a reader that never campaigns.
 *
 * <p>Not thread-safe: picocli fills it in, then one thread runs it.
 */
abstract class ReadCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  StoreOptions store;

  @Option(names = "--key", required = true, paramLabel = "KEY", description = "the election key (etcd key, or the SQL lease row's name)")
  String key;

  @Option(names = "--json", description = "one JSON object per line instead of text")
  boolean json;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = Seconds.class, defaultValue = "5s",
      description = "how long one read may take before the store counts as unreachable (default: ${DEFAULT-VALUE})")
  Duration timeout;

  /** reader validates the options and opens a read-only reader for the chosen backend. */
  LeaderReader reader() {
    store.validate();
    if (timeout.isNegative() || timeout.isZero()) {
      throw new ParameterException(spec.commandLine(), "--timeout must be > 0 seconds, but was " + Durations.seconds(timeout));
    }
    if (key.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--key must be non-blank, but was \"" + key + "\"");
    }
    if (store.isEtcd()) {
      // Core reads and checks the TLS files and credentials, naming the option. Never started,
      // the elector holds no thread or connection; close() would only log a CLOSED line.
      store.elector(Map.of("leasehold.key", key));
    }
    try {
      return store.isEtcd() ? EtcdLeaderReader.open(store, key) : SqlLeaderReader.open(store, key);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** format prints a snapshot as text or JSON; {@code time} is printed when not null. */
  String format(LeaderReader.Snapshot s, Instant time) {
    if (json) {
      return Json.snapshot(key, s, time);
    }
    String prefix = time == null ? "" : time + " ";
    if (s.leaderId().isEmpty()) {
      return prefix + "key " + key + ": no leader";
    }
    String lease = s.leaseId() == 0 ? "" : " lease " + Long.toHexString(s.leaseId());
    return prefix + "key " + key + ": leader " + s.leaderId().get() + " fencing-token " + s.fencingToken() + lease
        + " ttl-left " + Durations.seconds(s.ttlLeft()) + " of " + Durations.seconds(s.grantedTtl());
  }
}
