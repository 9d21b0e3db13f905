package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * LeaderOnlyInterceptor runs a {@link LeaderOnly} method only while this instance's term is
 * valid (the context's elector's, or its key's election's), checked at each call, and skips it otherwise (DEBUG log). A fenced call gets its term
 * in its {@link Leadership} parameter and through {@link CurrentLeadership}.
 *
 * <p>Thread-safe: calls on many threads at once share only a concurrent cache of per-method
 * plans and the thread-safe {@link LeaderOnlyCalls} and {@link LeaderOnlyKeys}.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {
  private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

  // The elector is looked up at the first call, not when the advisor is created with the
  // post-processors: creating it that early would keep it from being post-processed.
  private final ObjectProvider<LeaderElector> elector;
  private final LeaderOnlyCalls calls;
  private final LeaderOnlyKeys keys;
  private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

  LeaderOnlyInterceptor(ObjectProvider<LeaderElector> elector, LeaderOnlyCalls calls, LeaderOnlyKeys keys) {
    this.elector = elector;
    this.calls = calls;
    this.keys = keys;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    Class<?> target = invocation.getThis() != null ? AopUtils.getTargetClass(invocation.getThis()) : null;
    Plan plan = plans.computeIfAbsent(method, m -> Plan.of(m, target));
    if (plan == null) {
      return invocation.proceed();
    }
    String key = plan.annotation.key();
    LeaderElector e = key.isEmpty() ? elector.getIfAvailable() : keys.elector(key);
    if (e == null) {
      // Fail closed: without an elector (leasehold.enabled=false, or the keys' session not
      // running) nobody is the leader.
      log.debug("skipped {}: no leasehold elector{} in this context", plan.name, key.isEmpty() ? "" : " of key " + key);
      return skipped(method.getReturnType());
    }
    Optional<Leadership> current = e.leadership();
    if (current.isEmpty()) {
      log.debug("skipped {}: not the leader of {} ({})", plan.name, e.config().electionKey(), e.state());
      return skipped(method.getReturnType());
    }
    Leadership term = current.get();
    // Registered before the validity check: see LeaderOnlyCalls for why this order.
    LeaderOnlyCalls.Call call = calls.enter(term, plan.name, plan.annotation.interruptOnLoss());
    try {
      if (!term.isValid()) {
        log.debug("skipped {}: term {} of {} has ended", plan.name, term.fencingToken(), term.electionKey());
        return skipped(method.getReturnType());
      }
      if (!plan.annotation.fenced()) {
        return invocation.proceed();
      }
      if (plan.leadershipParameter >= 0) {
        invocation.getArguments()[plan.leadershipParameter] = term;
      }
      Leadership outer = CurrentLeadership.bind(term);
      try {
        return invocation.proceed();
      } finally {
        CurrentLeadership.restore(outer);
      }
    } finally {
      call.exit();
    }
  }

  private static Object skipped(Class<?> type) {
    if (type == Optional.class) {
      return Optional.empty();
    }
    if (!type.isPrimitive() || type == void.class) {
      return null;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == double.class) {
      return 0d;
    }
    if (type == float.class) {
      return 0f;
    }
    if (type == int.class) {
      return 0;
    }
    return type == short.class ? (Object) (short) 0 : (Object) (byte) 0;
  }

  /** Plan is what the interceptor needs of one method; immutable. */
  record Plan(LeaderOnly annotation, int leadershipParameter, String name) {
    /** of finds the annotation on the method or its most specific override, or returns null. */
    static Plan of(Method method, Class<?> target) {
      Method specific = target != null ? AopUtils.getMostSpecificMethod(method, target) : method;
      LeaderOnly a = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
      if (a == null) {
        a = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
      }
      if (a == null) {
        return null;
      }
      return new Plan(a, leadershipParameter(specific),
          specific.getDeclaringClass().getSimpleName() + "." + specific.getName());
    }

    /** leadershipParameter is the index of the method's one Leadership parameter, or -1; more than one is refused. */
    static int leadershipParameter(Method m) {
      int found = -1;
      Class<?>[] types = m.getParameterTypes();
      for (int i = 0; i < types.length; i++) {
        if (types[i] == Leadership.class) {
          if (found >= 0) {
            throw new IllegalStateException("@LeaderOnly method " + m
                + " must declare at most one dev.leasehold.Leadership parameter, but declares several");
          }
          found = i;
        }
      }
      return found;
    }
  }
}
