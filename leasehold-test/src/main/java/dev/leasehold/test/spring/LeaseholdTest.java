package dev.leasehold.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * LeaseholdTest, on a {@code @SpringBootTest} class, replaces the context's elector with a
 * controllable one: a real elector on virtual time ({@link dev.leasehold.test.VirtualStore}),
 * which the auto-configuration then starts, closes and wires to {@code @LeaderOnly} and the
 * leadership events as in production. The test injects {@link LeadershipControl} and calls
 * {@link LeadershipControl#grant()} and {@link LeadershipControl#revoke} to start and end terms,
 * with no store to run and no TTL to wait out:
 *
 * <pre>{@code
 * @SpringBootTest
 * @LeaseholdTest
 * class DispatcherTest {
 *   @Autowired LeadershipControl leadership;
 *   ...
 *   leadership.grant();
 *   leadership.revoke(Cause.LEASE_EXPIRED_LOCALLY);
 * }
 * }</pre>
 *
 * <p>The elector's key is {@code leasehold.key} (default {@code /leasehold/test}), its
 * candidate id {@code leasehold.candidate-id} (default {@code test}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Import(LeaseholdTestConfiguration.class)
public @interface LeaseholdTest {}
