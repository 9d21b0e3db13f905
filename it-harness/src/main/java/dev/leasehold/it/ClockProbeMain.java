package dev.leasehold.it;

/**
 * ClockProbeMain prints {@code TICK <nanoTime>} about every 50 ms of its own clock, {@code
 * <count>} times (the first argument), then exits: a parent compares those readings with its own
 * clock to measure the child's clock rate (see {@link Faketime}). Not thread-safe; one per JVM.
 */
public final class ClockProbeMain {
  private ClockProbeMain() {}

  /**
   * main prints the ticks.
   *
   * @param args the number of ticks
   * @throws InterruptedException never in practice (nothing interrupts it)
   */
  public static void main(String[] args) throws InterruptedException {
    int count = Integer.parseInt(args[0]);
    for (int i = 0; i < count; i++) {
      System.out.println("TICK " + System.nanoTime());
      System.out.flush();
      Thread.sleep(50);
    }
  }
}
