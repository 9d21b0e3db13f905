package dev.leasehold.cli;

import picocli.CommandLine.Command;

/**
 * StatusCommand is {@code leasehold status}: one read of the key and its lease.
 *
 * <p>Not thread-safe: picocli fills it in, then {@link #call()} runs once.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    header = "Show the current leader, its fencing token and its lease's time left.",
    description = {
        "Print the current leader of --key, its fencing token and the time left on its lease, read "
            + "from the store with a read-only client (it never campaigns). The time left is the store's "
            + "(etcd reports whole seconds); the leader itself steps down earlier, at its local deadline."},
    optionListHeading = "%nOptions:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:answered (with or without a leader)", "2:bad arguments",
        "78:configuration error: the store refused the read (credentials, permissions, a missing table)",
        "123:the store did not answer"})
final class StatusCommand extends ReadCommand {
  @Override
  public Integer call() {
    try (LeaderReader reader = reader()) {
      spec.commandLine().getOut().println(format(reader.read(timeout), null));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }
}
