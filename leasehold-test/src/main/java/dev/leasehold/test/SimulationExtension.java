package dev.leasehold.test;

import java.lang.reflect.Method;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * SimulationExtension is the JUnit 5 extension behind {@link LeaseholdSimulation}: it resolves a
 * test method's {@link Simulation} parameter from the method's annotation, with a replay command
 * that names the method.
 *
 * <p>Stateless and thread-safe.
 */
public final class SimulationExtension implements ParameterResolver {
  /** SimulationExtension is created by JUnit. */
  public SimulationExtension() {}

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Simulation.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Method method = context.getRequiredTestMethod();
    LeaseholdSimulation a = method.getAnnotation(LeaseholdSimulation.class);
    if (a == null) {
      throw new ParameterResolutionException(
          "a Simulation parameter needs @LeaseholdSimulation on " + method.getName());
    }
    return Simulation.builder()
        .instances(a.instances())
        .schedules(a.schedules())
        .seed(a.seed())
        .duration(Duration.ofSeconds(a.durationSeconds()))
        .faults(a.faults())
        .checkOverlap(a.checkOverlap())
        .electors(b -> b.leaseTtl(Duration.ofSeconds(a.leaseTtlSeconds())))
        .replayCommand("mvn test -Dtest='" + context.getRequiredTestClass().getSimpleName() + "#"
            + method.getName() + "'")
        .build();
  }
}
