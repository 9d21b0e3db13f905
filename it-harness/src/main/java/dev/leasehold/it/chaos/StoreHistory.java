package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.Incarnation;
import dev.leasehold.it.chaos.History.StoreWrite;
import io.etcd.jetcd.Client;
import java.util.List;

/**
 * StoreHistory is what the store itself recorded of a run: every write to the counter and every
 * term. {@link #read} reads it from etcd, under a run's prefix, by replaying a watch from
 * revision 1 up to a sentinel key written last ({@link EtcdHistoryReplay}, which {@link
 * EtcdStore} also uses in segments around its compactions); {@link MariaDbStore} builds it from
 * its log table.
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

  /** read replays {@code prefix} from revision 1 (which must not have been compacted) and returns what it found. */
  public static StoreHistory read(List<String> endpoints, String prefix, String electionKey, String counterKey)
      throws Exception {
    try (Client client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build()) {
      return new EtcdHistoryReplay(prefix, electionKey, counterKey).finish(client);
    }
  }
}
