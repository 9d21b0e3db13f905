package dev.leasehold.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Leasehold is the {@code leasehold} command: {@code run} supervises a child process that runs
 * only while this process leads, {@code status} shows the current leader, {@code watch} prints
 * every change of leader, {@code transfer} asks the leader to hand its term to a named candidate.
 *
 * <p>Stateless and thread-safe; run it as a program.
 */
@Command(
    name = "leasehold",
    mixinStandardHelpOptions = true,
    versionProvider = Leasehold.Version.class,
    description = "Leader election on etcd, PostgreSQL or MariaDB/MySQL from the shell: run a command only while leader.",
    subcommands = {RunCommand.class, StatusCommand.class, WatchCommand.class, TransferCommand.class,
        CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success",
        "2:bad arguments (the message names the option)",
        "3:transfer: refused (no leader, or the candidate is not waiting in the queue)",
        "78:configuration error: the store refused leasehold (credentials, permissions, a missing table),"
            + " or run --require-tree-kill where no PID namespace can be made",
        "123:the store (etcd, database) could not be reached",
        "124:run: leadership not acquired within --timeout; transfer: not handed over within --timeout",
        "125:run: leadership lost; the child was stopped",
        "126:run: the command is not executable (or could not be started)",
        "127:run: the command was not found",
        "N:run: the child's own exit code (128+S when it died of signal S)"})
public final class Leasehold {
  /** USAGE is the exit code of bad arguments, with a message that names the option. */
  static final int USAGE = 2;
  /**
   * CONFIG is the exit code of a configuration error ({@code EX_CONFIG} of sysexits.h): the store
   * answered and refused leasehold, or {@code --require-tree-kill} cannot be honoured here. Only
   * the operator can fix it; waiting or retrying cannot.
   */
  static final int CONFIG = 78;
  /** STORE_UNREACHABLE is the exit code when etcd or the database does not answer. */
  static final int STORE_UNREACHABLE = 123;
  /** NOT_ACQUIRED is the exit code when {@code run} did not lead within {@code --timeout}. */
  static final int NOT_ACQUIRED = 124;
  /** LOST is the exit code when the term ended under a running child, which was stopped. */
  static final int LOST = 125;
  /**
   * CANNOT_EXECUTE is the exit code when {@code run}'s command was found but could not be
   * executed (not executable, or the start failed), as in the shell.
   */
  static final int CANNOT_EXECUTE = 126;
  /** NOT_FOUND is the exit code when {@code run}'s command is not found, as in the shell. */
  static final int NOT_FOUND = 127;
  /** INTERNAL is the exit code of an unexpected failure inside leasehold itself. */
  static final int INTERNAL = 1;

  private Leasehold() {}

  /** main runs the command and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** execute runs the command line in this JVM and returns its exit code (for tests). */
  static int execute(String... args) {
    CommandLine cli = commandLine();
    return cli.execute(args);
  }

  /** commandLine is the configured parser: everything after the child's command is its own. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Leasehold());
    cli.setStopAtPositional(true);
    // Paragraphs are wrapped at words to the terminal's width (80 columns when it has none).
    cli.setUsageHelpAutoWidth(true);
    // The message names the option; the whole help would bury it.
    cli.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine c = e.getCommandLine();
          c.getErr().println("leasehold: " + e.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(e, c.getErr());
          c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
          return USAGE;
        });
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof StoreUnreachableException) {
            commandLine.getErr().println("leasehold: " + e.getMessage());
            return STORE_UNREACHABLE;
          }
          if (e instanceof ConfigurationException) {
            commandLine.getErr().println("leasehold: configuration error: " + e.getMessage());
            return CONFIG;
          }
          commandLine.getErr().println("leasehold: internal error: " + e);
          e.printStackTrace(commandLine.getErr());
          return INTERNAL;
        });
    return cli;
  }

  /** Version reads the version the jar's manifest carries. Stateless and thread-safe. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Leasehold.class.getPackage().getImplementationVersion();
      return new String[] {"leasehold " + (v == null ? "(development build)" : v)};
    }
  }

  /**
   * ConfigurationException reports that the store answered and refused a read (credentials,
   * permissions, a missing table); it maps to exit code {@link Leasehold#CONFIG}. Immutable.
   */
  static final class ConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConfigurationException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * StoreUnreachableException reports that etcd or the database did not answer; it maps to
   * exit code {@link Leasehold#STORE_UNREACHABLE}. Immutable.
   */
  static final class StoreUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StoreUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
