package dev.leasehold.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * LeaderOnly makes a bean method run only while this instance holds leadership: each call
 * checks {@link dev.leasehold.Leadership#isValid()} at call time and is skipped (logged at
 * DEBUG) when it is false. Typically beside {@code @Scheduled}, whose trigger fires on every
 * instance:
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 1000)
 * @LeaderOnly(fenced = true)
 * void dispatch() {
 *   Leadership term = CurrentLeadership.get();
 *   kv.txn().If(EtcdFencing.isCurrentTerm(term)).Then(put).commit();
 * }
 * }</pre>
 *
 * <p>The check is made per call by an AOP interceptor, not once at start-up like a bean
 * condition, so the work moves with leadership. A skipped call returns {@code null} ({@code
 * false}, zero or {@link java.util.Optional#empty()} where the return type needs one): give
 * leader-only methods a {@code void} return. The method must be called through the bean (a
 * proxy), as for {@code @Transactional}: a call from the same object bypasses the check.
 *
 * <p>A running call is interrupted when its term ends ({@link #interruptOnLoss()}), so
 * blocking work stops early; the check alone cannot stop a call already past it, and a
 * paused process can still act after its term ended: guard every effect with the term's
 * fencing token ({@link #fenced()}).
 *
 * <p>With a {@link #key()}, each key is its own election, spread over the instances:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @LeaderOnly(key = "nightly-report", fenced = true)
 * void nightlyReport() { ... CurrentLeadership.get().fencingToken() ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe (an annotation); the interceptor that applies it is thread-safe,
 * and calls on several threads at once are each checked on their own.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {
  /**
   * fenced hands the method its term, for writes guarded by the fencing token: in its {@link
   * dev.leasehold.Leadership} parameter if it declares one (whatever the caller passed there),
   * and always through {@link CurrentLeadership#get()} for the duration of the call (the only
   * way on a {@code @Scheduled} method, which Spring requires to take no arguments). Default
   * false.
   *
   * @return whether the call gets its term
   */
  boolean fenced() default false;

  /**
   * key makes the method's own election, {@code leasehold.jobs.prefix + key}, on the context's
   * one shared etcd session, spread over the instances (each holds its share of the keyed
   * jobs, PROTOCOL.md §11.7): ShedLock's per-job lock, with spreading, fencing and events. The
   * call checks that job's term; {@link CurrentLeadership#get()} gives that term, fenced by its
   * own token. Methods with one key share one election. Default "": the context's elector, as
   * before. Needs the etcd backend ({@code leasehold.backends=etcd}).
   *
   * @return the job's key under {@code leasehold.jobs.prefix}; empty for the context's elector
   */
  String key() default "";

  /**
   * interruptOnLoss interrupts the thread running the call when its term ends (the thread's
   * interrupt flag is cleared again when the call returns); default true.
   *
   * @return whether a call is interrupted when its term ends
   */
  boolean interruptOnLoss() default true;
}
