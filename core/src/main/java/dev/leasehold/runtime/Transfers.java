package dev.leasehold.runtime;

import dev.leasehold.LeaderInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;

/**
 * Transfers holds the futures of {@code transferTo} calls until the machine answers each with its
 * {@link Command.TransferOutcome}, and completes them on the dispatcher (never on the event loop,
 * since their callbacks are user code): with the new leader, or with an {@link
 * IllegalStateException} that gives the machine's reason. Closing the elector fails the ones
 * still open. It logs the outcomes of operators' transfer requests.
 *
 * <p>Not thread-safe: confined to the elector's event loop.
 */
final class Transfers {
  private final Executor dispatcher;
  private final Logger log;
  private final String name;
  private final Map<Long, CompletableFuture<LeaderInfo>> open = new HashMap<>();
  private long lastId;

  Transfers(Executor dispatcher, Logger log, String name) {
    this.dispatcher = dispatcher;
    this.log = log;
    this.name = name;
  }

  /** open registers {@code f} and returns the id of its {@link Input.Transfer}. */
  long open(CompletableFuture<LeaderInfo> f) {
    long id = ++lastId;
    open.put(id, f);
    return id;
  }

  /**
   * answered completes the transfer the outcome answers; an unknown id is ignored. An outcome of
   * a negative id answers an operator's transfer request, which nobody here waits on: it is
   * logged, INFO when carried out, WARN when not.
   */
  void answered(Command.TransferOutcome outcome) {
    if (outcome.id() < 0) {
      if (outcome.target() != null) {
        log.info("{}: handed the term to {} (fencing token {}) as a transfer request asked", name,
            outcome.target().candidateId(), outcome.target().fencingToken());
      } else {
        log.warn("{}: a transfer request was not carried out: {}", name, outcome.refusal());
      }
      return;
    }
    CompletableFuture<LeaderInfo> f = open.remove(outcome.id());
    if (f != null) {
      settle(f, outcome.target(), outcome.refusal());
    }
  }

  /** refuse fails {@code f}, never opened, with {@code refusal}, on the dispatcher as every answer. */
  void refuse(CompletableFuture<LeaderInfo> f, String refusal) {
    settle(f, null, refusal);
  }

  /** closed fails every open transfer: the elector closed before its outcome was known. */
  void closed() {
    List<CompletableFuture<LeaderInfo>> left = new ArrayList<>(open.values());
    open.clear();
    for (CompletableFuture<LeaderInfo> f : left) {
      settle(f, null, "the elector closed before the transfer's outcome was known");
    }
  }

  private void settle(CompletableFuture<LeaderInfo> f, LeaderInfo target, String refusal) {
    Runnable complete = () -> {
      if (target != null) {
        f.complete(target);
      } else {
        f.completeExceptionally(new IllegalStateException("transfer refused: " + refusal));
      }
    };
    try {
      dispatcher.execute(complete);
    } catch (RejectedExecutionException dispatcherGone) {
      complete.run();
    }
  }
}
