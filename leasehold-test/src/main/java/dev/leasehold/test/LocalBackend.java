package dev.leasehold.test;

import dev.leasehold.local.LocalStore;
import dev.leasehold.runtime.Scheduler;
import dev.leasehold.runtime.StorePort;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * LocalBackend reaches the two package-private parts of core's local backend the kit needs: a
 * {@link LocalStore} that runs on a scheduler (virtual time), and the store port an elector
 * uses. Core opens {@code dev.leasehold.local} to this module alone, so neither is public API;
 * a renamed constructor fails every test of the kit at once.
 *
 * <p>Stateless and thread-safe.
 */
final class LocalBackend {
  private static final MethodHandle NEW_STORE;
  private static final MethodHandle NEW_PORT;

  static {
    try {
      MethodHandles.Lookup local = MethodHandles.privateLookupIn(LocalStore.class, MethodHandles.lookup());
      NEW_STORE = local.findConstructor(LocalStore.class, MethodType.methodType(void.class, Scheduler.class));
      Class<?> port = local.findClass("dev.leasehold.local.LocalPort");
      NEW_PORT = local
          .findConstructor(port, MethodType.methodType(void.class, LocalStore.class, String.class, String.class))
          .asType(MethodType.methodType(StorePort.class, LocalStore.class, String.class, String.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(
          "leasehold-test does not match leasehold-core (use the same version of both): " + e);
    }
  }

  private LocalBackend() {}

  /** store is a new local store whose clock, requests, deliveries and sweeps run on {@code loop}. */
  static LocalStore store(Scheduler loop) {
    try {
      return (LocalStore) NEW_STORE.invokeExact(loop);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** port is the store port of the candidate {@code candidateId} on {@code key}. */
  static StorePort port(LocalStore store, String key, String candidateId) {
    try {
      return (StorePort) NEW_PORT.invokeExact(store, key, candidateId);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
