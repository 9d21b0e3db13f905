package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.StoreWrite;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * EtcdHistoryReplay reads what etcd recorded under a run's prefix (every counter write, every
 * term of the election key; or, for a run of many elections, of each election key and its own
 * counter, a {@link Lane} each) by replaying a watch, in segments: each {@link #replayToMark}
 * puts a mark key under the prefix and replays from where the last segment ended through the
 * mark's revision. A run that compacts etcd replays a segment first and compacts at its mark (see
 * {@link EtcdStore#compact}), so nothing the checker needs is compacted before it was read.
 *
 * <p>Not thread-safe; the runner's thread only.
 */
final class EtcdHistoryReplay {
  private final String prefix;
  private final Map<String, Lane> byElection = new LinkedHashMap<>();
  private final Map<String, Lane> byCounter = new HashMap<>();
  private long nextRevision = 1;

  /**
   * Lane is one election key and the counter its leaders write, with what the replay found of
   * them so far.
   */
  private static final class Lane {
    private final String counterKey;
    private final List<StoreWrite> writes = new ArrayList<>();
    private final List<Incarnation> incarnations = new ArrayList<>();
    private long current = -1;
    private String holder;

    Lane(String counterKey) {
      this.counterKey = counterKey;
    }

    void applyCounter(KeyValue kv) {
      String[] f = kv.getValue().toString(StandardCharsets.UTF_8).split(" ");
      writes.add(new StoreWrite(kv.getModRevision(), Long.parseLong(f[0]), f[1], Long.parseLong(f[2]),
          Long.parseLong(f[3])));
    }

    void applyElection(WatchEvent e) {
      KeyValue kv = e.getKeyValue();
      if (e.getEventType() == WatchEvent.EventType.PUT) {
        if (current >= 0) {
          // A handover (PROTOCOL.md §4.5) or a spreading move (§11.7): the put ends the term
          // before and begins the next.
          incarnations.add(new Incarnation(current, kv.getModRevision(), holder));
        }
        current = kv.getModRevision();
        holder = kv.getValue().toString(StandardCharsets.UTF_8);
      } else if (e.getEventType() == WatchEvent.EventType.DELETE && current >= 0) {
        incarnations.add(new Incarnation(current, kv.getModRevision(), holder));
        current = -1;
      }
    }

    StoreHistory finish(Client client) throws Exception {
      List<Incarnation> all = new ArrayList<>(incarnations);
      if (current >= 0) {
        all.add(new Incarnation(current, Long.MAX_VALUE, holder));
      }
      List<KeyValue> kvs =
          client.getKVClient().get(bytes(counterKey), GetOption.DEFAULT).get(10, TimeUnit.SECONDS).getKvs();
      long finalCounter =
          kvs.isEmpty() ? 0 : Long.parseLong(kvs.get(0).getValue().toString(StandardCharsets.UTF_8).split(" ")[0]);
      return new StoreHistory(List.copyOf(writes), all, finalCounter);
    }
  }

  /** EtcdHistoryReplay replays {@code prefix}, where the election and counter keys are. */
  EtcdHistoryReplay(String prefix, String electionKey, String counterKey) {
    this(prefix, Map.of(electionKey, counterKey));
  }

  /**
   * EtcdHistoryReplay replays {@code prefix}, where every election key of {@code counters} and
   * its counter key are.
   */
  EtcdHistoryReplay(String prefix, Map<String, String> counters) {
    this.prefix = prefix;
    counters.forEach((election, counter) -> {
      Lane lane = new Lane(counter);
      byElection.put(election, lane);
      byCounter.put(counter, lane);
    });
  }

  /**
   * replayToMark puts {@code prefix + mark}, replays every change since the last segment through
   * its revision, and returns that revision.
   */
  long replayToMark(Client client, String mark) throws Exception {
    long markRevision =
        client.getKVClient().put(bytes(prefix + mark), bytes(mark)).get(10, TimeUnit.SECONDS).getHeader().getRevision();
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    WatchOption option = WatchOption.builder().withRevision(nextRevision).isPrefix(true).build();
    try (Watch.Watcher w =
        client.getWatchClient().watch(bytes(prefix), option, Watch.listener(response -> {
          for (WatchEvent e : response.getEvents()) {
            if (e.getKeyValue().getModRevision() <= markRevision) {
              apply(e);
            }
            if (e.getKeyValue().getModRevision() >= markRevision) {
              done.countDown();
            }
          }
        }, error -> {
          failure.set(error);
          done.countDown();
        }))) {
      if (!done.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("store history replay did not reach revision " + markRevision);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("store history replay from revision " + nextRevision + " failed",
          failure.get());
    }
    nextRevision = markRevision + 1;
    return markRevision;
  }

  /** finish replays the last segment and returns the whole history with the counter's final value. */
  StoreHistory finish(Client client) throws Exception {
    return finishAll(client).values().iterator().next();
  }

  /**
   * finishAll replays the last segment and returns, for each election key, its whole history with
   * its counter's final value, in the order the keys were given.
   */
  Map<String, StoreHistory> finishAll(Client client) throws Exception {
    replayToMark(client, "~end");
    Map<String, StoreHistory> out = new LinkedHashMap<>();
    for (Map.Entry<String, Lane> e : byElection.entrySet()) {
      out.put(e.getKey(), e.getValue().finish(client));
    }
    return out;
  }

  // Runs on jetcd's thread while replayToMark waits; the latch orders it before the caller reads.
  private void apply(WatchEvent e) {
    KeyValue kv = e.getKeyValue();
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    Lane counted = byCounter.get(key);
    if (counted != null && e.getEventType() == WatchEvent.EventType.PUT) {
      counted.applyCounter(kv);
    }
    Lane elected = byElection.get(key);
    if (elected != null) {
      elected.applyElection(e);
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
