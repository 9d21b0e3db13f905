package dev.leasehold.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * LeaderOnlyProxyRegistrar makes sure an auto-proxy creator applies the {@code @LeaderOnly}
 * advisor (an infrastructure advisor, as {@code @EnableTransactionManagement} registers one),
 * even with {@code spring.aop.auto=false}; it proxies classes, as Boot does by default, unless
 * {@code spring.aop.proxy-target-class=false}. No AspectJ weaving is involved.
 *
 * <p>Used once per context by Spring, on one thread.
 */
final class LeaderOnlyProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {
  private Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    if (environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
      AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
    }
  }
}
