package dev.leasehold.runtime;

import dev.leasehold.Participant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * QueueView answers {@code participants()}: the machine's queue read, sent from the event loop
 * (the store port is the loop's), its reply read by the machine and completed on the
 * dispatcher. An elector not running, or a machine without a queue, answers an empty list.
 *
 * <p>Stateless; thread-safe.
 */
final class QueueView {
  private QueueView() {}

  static CompletionStage<List<Participant>> read(
      Scheduler scheduler, Machine machine, StorePort store, long timeoutNanos, BooleanSupplier running) {
    CompletableFuture<List<Participant>> view = new CompletableFuture<>();
    try {
      scheduler.execute(() -> {
        StoreCall read = machine.queueRead();
        if (read == null || !running.getAsBoolean()) {
          scheduler.dispatcher().execute(() -> view.complete(List.of()));
          return;
        }
        CompletableFuture<? extends Input> reply;
        try {
          reply = store.call(read).toCompletableFuture().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
          reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((in, failure) -> scheduler.dispatcher().execute(() -> {
          if (failure != null) {
            view.completeExceptionally(failure);
          } else {
            view.complete(machine.queueOf(in));
          }
        }));
      });
    } catch (RejectedExecutionException closed) {
      view.complete(List.of());
    }
    return view;
  }
}
