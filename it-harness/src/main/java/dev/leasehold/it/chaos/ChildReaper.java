package dev.leasehold.it.chaos;

/**
 * ChildReaper is a shutdown hook that SIGKILLs this JVM's descendant processes whose command line
 * names a main class, for a chaos run's child JVMs if this JVM dies before the run's own {@code
 * finally} (Ctrl-C, a Failsafe timeout): one frozen with SIGSTOP would otherwise stay frozen for
 * ever, and SIGKILL reaches stopped processes too. {@link #close} removes the hook once the run
 * has ended its children itself.
 *
 * <p>Thread-safe.
 */
final class ChildReaper implements AutoCloseable {
  private final Thread hook;

  private ChildReaper(Thread hook) {
    this.hook = hook;
  }

  /** install adds the hook for the children running {@code mainClass}. */
  static ChildReaper install(Class<?> mainClass) {
    String name = mainClass.getSimpleName();
    Thread hook = new Thread(() -> ProcessHandle.current().descendants()
        .filter(h -> h.info().commandLine().map(c -> c.contains(name)).orElse(false))
        .forEach(ProcessHandle::destroyForcibly), "chaos-reaper-" + name);
    Runtime.getRuntime().addShutdownHook(hook);
    return new ChildReaper(hook);
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
  }
}
