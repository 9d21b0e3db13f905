package dev.leasehold.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Guard is what {@code run} starts its command under so that the command cannot outlive
 * leasehold, and how far that holds: the whole process tree ({@link #treeKill()}) or only the
 * command's own process. {@link #choose()} picks the strongest guard this machine allows by
 * running each once.
 *
 * <p>Tree kill. The command runs as {@code setpriv --pdeathsig KILL -- unshare [--user
 * --map-current-user] --pid --fork --kill-child -- setsid -- sh -c INIT leasehold-guard PID
 * CMD ARGS...}:
 * <ol>
 *   <li>setpriv sets the parent-death signal (PR_SET_PDEATHSIG), which survives its exec of
 *       unshare: when leasehold dies, SIGKILLed or not, the kernel SIGKILLs unshare;
 *   <li>unshare makes a new PID namespace and forks its first process, the namespace's init,
 *       whose parent-death signal {@code --kill-child} sets: when unshare dies, the kernel
 *       SIGKILLs the init;
 *   <li>when a namespace's init dies, the kernel SIGKILLs every process in the namespace, also
 *       those that left the process group ({@code setsid}) or their parent (daemons), and
 *       reports the init's exit only once they are all gone.
 * </ol>
 * No process has to live to do the killing: both steps are the kernel's. The init is a shell
 * that runs the command as its child rather than exec it, because an init ignores every signal
 * it has no handler for, and the command must keep the default ones (a {@code sleep} dies of
 * SIGTERM); it exits with the command's status, which unshare passes on. {@code setsid} makes
 * the init the leader of a new session and process group, which {@link Child#signal} addresses:
 * the init drops TERM, INT and HUP, the command gets them. {@code --user --map-current-user}
 * (an unprivileged user namespace mapping only the caller's uid) is what lets a user without
 * CAP_SYS_ADMIN make a PID namespace; root does not need it.
 *
 * <p>Child only. Where no PID namespace can be made, the command runs as {@code setsid setpriv
 * --pdeathsig KILL -- sh -c GUARD leasehold-guard PID CMD ARGS...}: its own process gets the
 * parent-death signal, its children do not.
 *
 * <p>Both guards exec the command only while its parent (tree kill: its grandparent) is still
 * leasehold, which closes the race between the spawn and the prctl calls: a death before them
 * shows as another parent. The parent-death signal fires when the <em>thread</em> that spawned
 * the process exits, which {@link Child} takes care of. Exec of a set-user-ID or file-capability
 * program clears it.
 *
 * <p>Immutable and thread-safe.
 */
final class Guard {
  // Tree kill's init. $1 is leasehold's pid. The PPid lines are read from the host's /proc
  // (no --mount-proc), so they are host pids; the fd is opened by the shell itself, not a
  // subshell, so /proc/self is this process. Not exec: see the class comment.
  private static final String INIT =
      "ppid() { p=; exec 3<\"$1\" || return; while read -r k v <&3; do"
          + " if [ \"$k\" = PPid: ]; then p=$v; break; fi; done; exec 3<&-; };"
          + " ppid /proc/self/status; [ -n \"$p\" ] && ppid \"/proc/$p/status\";"
          + " if [ \"$p\" != \"$1\" ]; then echo 'leasehold: parent gone before the child started' >&2; exit 125; fi;"
          + " shift; \"$@\"; exit $?";
  // Child only's guard. PPID is read by the shell at its start, after setpriv's prctl.
  private static final String GUARD =
      "if [ \"$PPID\" != \"$1\" ]; then echo 'leasehold: parent gone before the child started' >&2;"
          + " exit 125; fi; shift; exec \"$@\"";
  private static final List<String> PID_NAMESPACE = List.of("--pid", "--fork", "--kill-child");
  private static final List<String> USER_NAMESPACE = List.of("--user", "--map-current-user");

  private final List<String> prefix;
  private final String script;
  private final boolean treeKill;
  private final String description;

  private Guard(List<String> prefix, String script, boolean treeKill, String description) {
    this.prefix = List.copyOf(prefix);
    this.script = script;
    this.treeKill = treeKill;
    this.description = description;
  }

  /**
   * Choice is {@link #choose()}'s answer: the guard to use, or null when none works here, and
   * why the stronger ones were not taken (null when the first one was). Immutable.
   */
  record Choice(Guard guard, String refused) {}

  /**
   * choose runs every guard of {@link #candidates()} in turn with {@code true} as the command and returns
   * the first that works, with why the stronger ones failed. Running one also loads the JVM's
   * process machinery, so the first term does not pay for it (hundreds of milliseconds on a
   * cold, loaded JVM).
   *
   * @return null if setsid or setpriv is missing from PATH
   */
  static Choice choose() throws InterruptedException {
    return choose(true);
  }

  /**
   * choose is {@link #choose()}, or, when {@code pidNamespace} is false (the user's
   * {@code --no-pid-namespace}), the child-only guard without trying the stronger ones.
   *
   * @return null if setsid or setpriv is missing from PATH
   */
  static Choice choose(boolean pidNamespace) throws InterruptedException {
    List<Guard> candidates = candidates();
    if (candidates == null) {
      return null;
    }
    List<String> refused = new ArrayList<>();
    if (!pidNamespace) {
      candidates = candidates.subList(candidates.size() - 1, candidates.size());
      refused.add("--no-pid-namespace");
    } else if (resolve("unshare") == null) {
      refused.add("no unshare on PATH");
    }
    for (Guard g : candidates) {
      String failure = g.tryOnce();
      if (failure == null) {
        return new Choice(g, refused.isEmpty() ? null : String.join("; ", refused));
      }
      refused.add(g.description + ": " + failure);
    }
    return new Choice(null, String.join("; ", refused));
  }

  /**
   * candidates lists the guards this PATH allows, strongest first: a PID namespace as is
   * (root, or CAP_SYS_ADMIN), one inside a user namespace (other users), then child only.
   *
   * @return null if setsid or setpriv is missing
   */
  static List<Guard> candidates() {
    String setsid = resolve("setsid");
    String setpriv = resolve("setpriv");
    if (setsid == null || setpriv == null) {
      return null;
    }
    List<Guard> all = new ArrayList<>();
    String unshare = resolve("unshare");
    if (unshare != null) {
      for (List<String> user : List.of(List.<String>of(), USER_NAMESPACE)) {
        List<String> flags = new ArrayList<>(user);
        flags.addAll(PID_NAMESPACE);
        List<String> prefix = new ArrayList<>(List.of(setpriv, "--pdeathsig", "KILL", "--", unshare));
        prefix.addAll(flags);
        prefix.addAll(List.of("--", setsid, "--"));
        all.add(new Guard(prefix, INIT, true, "unshare " + String.join(" ", flags)));
      }
    }
    all.add(new Guard(List.of(setsid, setpriv, "--pdeathsig", "KILL", "--"), GUARD, false,
        "setsid setpriv --pdeathsig KILL"));
    return all;
  }

  /**
   * treeKill tells whether the command's whole process tree dies with leasehold; if false,
   * only the command's own process does.
   */
  boolean treeKill() {
    return treeKill;
  }

  /** argv is the full command line that runs {@code command} under this guard. */
  List<String> argv(List<String> command) {
    List<String> argv = new ArrayList<>(prefix);
    argv.addAll(List.of("/bin/sh", "-c", script, "leasehold-guard", Long.toString(ProcessHandle.current().pid())));
    argv.addAll(command);
    return argv;
  }

  @Override
  public String toString() {
    return description;
  }

  /** tryOnce runs {@code true} under this guard: null if it worked, else what it printed. */
  String tryOnce() throws InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(argv(List.of("true"))).redirectErrorStream(true);
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      return e.getMessage();
    }
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return "no exit within 10 s";
    }
    if (p.exitValue() == 0) {
      return null;
    }
    String said;
    try (var in = p.getInputStream()) {
      // A few lines at most (unshare's error): they fit the pipe, so reading after the exit is safe.
      said = new String(in.readNBytes(4096), StandardCharsets.UTF_8).strip().replace('\n', ' ');
    } catch (IOException e) {
      said = "";
    }
    return said.isEmpty() ? "exit " + p.exitValue() : said;
  }

  /** resolve finds {@code program} on PATH (or, with no PATH at all, in the usual places). */
  static String resolve(String program) {
    String path = System.getenv("PATH");
    String dirs = path == null || path.isEmpty() ? "/usr/bin:/bin:/usr/sbin:/sbin" : path;
    for (String dir : dirs.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    return null;
  }
}
