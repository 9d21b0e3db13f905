package dev.leasehold.spring;

import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * LeaderOnlyPointcut matches the methods annotated {@link LeaderOnly} (on the method or an
 * override of it), and refuses, when the proxy is made, uses that could never work: a
 * {@code Leadership} parameter on an unfenced method, or several of them ({@link
 * LeaderOnlyChecker} refuses the methods a proxy cannot reach).
 *
 * <p>Stateless and thread-safe.
 */
final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {
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
    return true;
  }

  @Override
  public String toString() {
    return "LeaderOnlyPointcut";
  }
}
