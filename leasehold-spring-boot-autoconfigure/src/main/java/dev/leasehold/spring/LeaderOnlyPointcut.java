package dev.leasehold.spring;

import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * LeaderOnlyPointcut matches the methods annotated {@link LeaderOnly} (on the method or an
 * override of it), records their keys ({@link LeaderOnly#key()}) so that their elections start
 * with the context, and refuses, when the proxy is made, uses that could never work: a
 * {@code Leadership} parameter on an unfenced method, or several of them ({@link
 * LeaderOnlyChecker} refuses the methods a proxy cannot reach).
 *
 * <p>Thread-safe: its one field is the thread-safe {@link LeaderOnlyKeys}.
 */
final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {
  private final LeaderOnlyKeys keys;

  /** LeaderOnlyPointcut records the keys of the {@code @LeaderOnly(key)} methods it matches in {@code keys}. */
  LeaderOnlyPointcut(LeaderOnlyKeys keys) {
    this.keys = keys;
  }

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    LeaderOnly a = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
    if (a == null) {
      return false;
    }
    int parameter = LeaderOnlyInterceptor.Plan.leadershipParameter(specific);
    if (parameter >= 0 && !a.fenced()) {
      throw new IllegalStateException("@LeaderOnly method " + specific
          + " declares a dev.leasehold.Leadership parameter, which only @LeaderOnly(fenced = true) fills");
    }
    if (!a.key().isEmpty()) {
      if (a.key().isBlank()) {
        throw new IllegalStateException("@LeaderOnly method " + specific
            + " must have a non-blank key, or none, but has \"" + a.key() + "\"");
      }
      keys.register(a.key());
    }
    return true;
  }

  @Override
  public String toString() {
    return "LeaderOnlyPointcut";
  }
}
