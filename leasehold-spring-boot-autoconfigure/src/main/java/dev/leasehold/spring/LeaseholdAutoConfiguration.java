package dev.leasehold.spring;

import dev.leasehold.LeaderElector;
import dev.leasehold.LeadershipListener;
import dev.leasehold.local.LocalStore;
import dev.leasehold.select.FallbackElector;
import io.etcd.jetcd.Client;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * LeaseholdAutoConfiguration creates the context's {@link LeaderElector} from {@code
 * leasehold.*} with core's {@code Backends} (so fallback policies too; unless the application
 * defines its own elector), starts it with the context and
 * closes it on shutdown ({@link ElectorLifecycle}), publishes its events as {@link
 * LeadershipChangedEvent}s (and Spring Integration's leader events when that is on the class
 * path), applies {@link LeaderOnly} to bean methods, and, when etcd is a configured backend,
 * defines a jetcd {@link Client} for the application unless it has one.
 *
 * <p>{@code @LeaderOnly} is applied even with {@code leasehold.enabled=false}: without an
 * elector nobody leads, and leader-only methods are skipped (fail closed), never run on every
 * instance. Thread-safe, like every Spring configuration once the context is refreshed.
 */
@AutoConfiguration
@ConditionalOnClass(LeaderElector.class)
@Import(LeaderOnlyProxyRegistrar.class)
public class LeaseholdAutoConfiguration {
  /** LeaseholdAutoConfiguration is created by Spring. */
  public LeaseholdAutoConfiguration() {}

  /** leaseholdLeaderOnlyCalls tracks running {@code @LeaderOnly} calls to interrupt them on loss. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LeaderOnlyCalls leaseholdLeaderOnlyCalls() {
    return new LeaderOnlyCalls();
  }

  /** leaseholdLeaderOnlyKeys holds the elections of {@code @LeaderOnly(key)} methods. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LeaderOnlyKeys leaseholdLeaderOnlyKeys() {
    return new LeaderOnlyKeys();
  }

  /** leaseholdLeaderOnlyAdvisor applies {@link LeaderOnly}; the elector is looked up at the first call. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static Advisor leaseholdLeaderOnlyAdvisor(
      ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyCalls> calls,
      ObjectProvider<LeaderOnlyKeys> keys) {
    LeaderOnlyKeys k = keys.getObject();
    return new DefaultPointcutAdvisor(
        new LeaderOnlyPointcut(k), new LeaderOnlyInterceptor(elector, calls.getObject(), k));
  }

  /** leaseholdLeaderOnlyChecker refuses {@code @LeaderOnly} methods no proxy can intercept. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LeaderOnlyChecker leaseholdLeaderOnlyChecker() {
    return new LeaderOnlyChecker();
  }

  /** EtcdConfigured matches when {@code leasehold.*} names etcd as a backend and gives its endpoints. */
  static final class EtcdConfigured implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return ElectorFactory.namesEtcd(context.getEnvironment());
    }
  }

  /** ElectorConfiguration holds the elector and its companions, unless {@code leasehold.enabled=false}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "leasehold", name = "enabled", havingValue = "true", matchIfMissing = true)
  static class ElectorConfiguration {
    /**
     * leaseholdElector builds the elector from {@code leasehold.*}; validated here, started by the
     * lifecycle. A {@link LocalStore} bean, if any, serves the local backend (else core's
     * process-wide one).
     */
    @Bean
    @ConditionalOnMissingBean(LeaderElector.class)
    FallbackElector leaseholdElector(Environment environment, ObjectProvider<LocalStore> store,
        org.springframework.context.ApplicationContext context) {
      return ElectorFactory.build(environment, store.getIfAvailable(), SpringHealthChecks.of(environment, context));
    }

    /**
     * leaseholdEtcdClient is a jetcd {@link Client} for the application's own calls (a fenced
     * job's writes), made from the etcd settings core makes of {@code leasehold.etcd.*}: the
     * endpoints, TLS material and credentials the elector uses. Defined only when etcd is a
     * configured backend and the application has no {@code Client} bean; closed with the
     * context. The elector does not use it: it keeps its own clients, which it can replace
     * after a long outage (within {@code retry-backoff-max}) and which carry its per-call
     * deadlines; a client shared with the application could be neither.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Client.class)
    @Conditional(EtcdConfigured.class)
    Client leaseholdEtcdClient(Environment environment) {
      return ElectorFactory.etcdSettings(environment).clientBuilder().build();
    }

    /** leaseholdLifecycle starts the elector with the context and closes it (resigning) on shutdown. */
    @Bean
    ElectorLifecycle leaseholdLifecycle(LeaderElector elector, ObjectProvider<LeadershipListener> listeners) {
      return new ElectorLifecycle(elector, listeners.orderedStream().toList());
    }

    /**
     * leaseholdLeaderOnlyKeysLifecycle opens the one spreading session of the {@code
     * @LeaderOnly(key)} methods with the context, if there are any, and closes it on shutdown.
     */
    @Bean
    LeaderOnlyKeysLifecycle leaseholdLeaderOnlyKeysLifecycle(
        ObjectProvider<LeaderOnlyKeys> keys, Environment environment, ObjectProvider<LeaderOnlyCalls> calls,
        ApplicationEventPublisher publisher, org.springframework.context.ApplicationContext context) {
      // The keyed jobs' session follows the same health check as the elector (readiness or a
      // named indicator): unhealthy, it hands its jobs to the healthy instances.
      return new LeaderOnlyKeysLifecycle(keys.getObject(), environment, calls.getObject(), publisher,
          () -> SpringHealthChecks.of(environment, context));
    }

    /** leaseholdSpringEvents publishes every elector event as a {@link LeadershipChangedEvent}. */
    @Bean
    SpringEventBridge leaseholdSpringEvents(LeaderElector elector, ApplicationEventPublisher publisher) {
      return new SpringEventBridge(elector, publisher);
    }

    /** IntegrationConfiguration publishes Spring Integration's leader events, when it is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.integration.leader.event.OnGrantedEvent")
    static class IntegrationConfiguration {
      /** leaseholdIntegrationEvents publishes OnGrantedEvent and OnRevokedEvent with the key as role. */
      @Bean
      IntegrationEventBridge leaseholdIntegrationEvents(LeaderElector elector, ApplicationEventPublisher publisher) {
        return new IntegrationEventBridge(elector, publisher);
      }
    }
  }
}
