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
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * StoreHistory is what the store itself recorded of a run: every write to the counter and every
 * term. {@link #read} reads it from etcd, under a run's prefix, by replaying a watch from
 * revision 1 (the chaos cluster never compacts) up to a sentinel key written last;
 * {@link MariaDbStore} builds it from its log table.
 *
 * <p>Immutable record; {@link #read} is not thread-safe, use once per run.
 *
 * @param writes every counter write, in revision order
 * @param incarnations every term the election key recorded, in revision order: each put of the
 *     key begins one (a campaign's create, or a handover's put: nobody else writes the key, so
 *     its mod revision is the term's token), ended by the next put or the key's deletion
 * @param finalCounter the counter's value at the end
 */
public record StoreHistory(List<StoreWrite> writes, List<Incarnation> incarnations, long finalCounter) {

  /** read replays {@code prefix} and returns what it found. */
  public static StoreHistory read(List<String> endpoints, String prefix, String electionKey, String counterKey)
      throws Exception {
    try (Client client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build()) {
      ByteSequence sentinel = bytes(prefix + "~end");
      long sentinelRev =
          client.getKVClient().put(sentinel, bytes("end")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
      List<StoreWrite> writes = new ArrayList<>();
      List<Incarnation> incarnations = new ArrayList<>();
      long[] current = {-1};
      String[] holder = {null};
      CountDownLatch done = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      WatchOption option =
          WatchOption.builder().withRevision(1).withPrefix(bytes(prefix)).build();
      try (Watch.Watcher w =
          client.getWatchClient().watch(bytes(prefix), option, Watch.listener(response -> {
            for (WatchEvent e : response.getEvents()) {
              KeyValue kv = e.getKeyValue();
              String key = kv.getKey().toString(StandardCharsets.UTF_8);
              if (key.equals(counterKey) && e.getEventType() == WatchEvent.EventType.PUT) {
                String[] f = kv.getValue().toString(StandardCharsets.UTF_8).split(" ");
                writes.add(new StoreWrite(kv.getModRevision(), Long.parseLong(f[0]), f[1], Long.parseLong(f[2]),
                    Long.parseLong(f[3])));
              } else if (key.equals(electionKey)) {
                if (e.getEventType() == WatchEvent.EventType.PUT) {
                  if (current[0] >= 0) {
                    // A handover (PROTOCOL.md §4.5): the put ends the term before and begins the next.
                    incarnations.add(new Incarnation(current[0], kv.getModRevision(), holder[0]));
                  }
                  current[0] = kv.getModRevision();
                  holder[0] = kv.getValue().toString(StandardCharsets.UTF_8);
                } else if (e.getEventType() == WatchEvent.EventType.DELETE && current[0] >= 0) {
                  incarnations.add(new Incarnation(current[0], kv.getModRevision(), holder[0]));
                  current[0] = -1;
                }
              }
              if (kv.getModRevision() >= sentinelRev) {
                done.countDown();
              }
            }
          }, error -> {
            failure.set(error);
            done.countDown();
          }))) {
        if (!done.await(120, TimeUnit.SECONDS)) {
          throw new IllegalStateException("store history replay did not reach revision " + sentinelRev);
        }
      }
      if (failure.get() != null) {
        throw new IllegalStateException("store history replay failed", failure.get());
      }
      if (current[0] >= 0) {
        incarnations.add(new Incarnation(current[0], Long.MAX_VALUE, holder[0]));
      }
      List<KeyValue> kvs =
          client.getKVClient().get(bytes(counterKey), GetOption.DEFAULT).get(10, TimeUnit.SECONDS).getKvs();
      long finalCounter =
          kvs.isEmpty() ? 0 : Long.parseLong(kvs.get(0).getValue().toString(StandardCharsets.UTF_8).split(" ")[0]);
      return new StoreHistory(writes, incarnations, finalCounter);
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
