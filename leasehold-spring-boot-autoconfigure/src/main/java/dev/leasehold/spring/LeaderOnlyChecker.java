package dev.leasehold.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * LeaderOnlyChecker fails the start when a bean has a {@link LeaderOnly} method that no proxy
 * can intercept (private, final or static), since such a method would silently run on every
 * instance. A call from the bean to itself bypasses the proxy too; that one cannot be checked
 * here.
 *
 * <p>Thread-safe: the set of classes already checked is concurrent.
 */
final class LeaderOnlyChecker implements BeanPostProcessor {
  private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    Class<?> type = AopUtils.getTargetClass(bean);
    if (checked.add(type)) {
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        for (Method m : c.getDeclaredMethods()) {
          int mod = m.getModifiers();
          if ((Modifier.isPrivate(mod) || Modifier.isFinal(mod) || Modifier.isStatic(mod))
              && AnnotatedElementUtils.hasAnnotation(m, LeaderOnly.class)) {
            throw new IllegalStateException("@LeaderOnly method " + m + " of bean '" + beanName
                + "' must be neither private, final nor static: the proxy that checks leadership"
                + " cannot intercept it, so it would run on every instance");
          }
        }
      }
    }
    return bean;
  }
}
