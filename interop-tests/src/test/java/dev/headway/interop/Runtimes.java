package dev.headway.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds the programs the servers need (Node.js with npm, Debian's python3 with Flask-Limiter,
 * nginx) and installs the npm packages, once per JVM. A missing program fails the cell that needs
 * it with the command that installs it: the suite never skips.
 */
final class Runtimes {
  static final Path MODULE = Path.of(InteropRun.property("interop.module"));
  static final Path WORK = Path.of(InteropRun.property("interop.work"));
  static final Path NODE_DIR = WORK.resolve("node");

  private static final String INSTALL_HINT = " (.ci/run installs it; by hand, as root on Debian:"
      + " %s)";
  private static boolean npmDone;

  private Runtimes() {}

  /** The {@code node} executable, with the suite's npm packages installed beside servers.js. */
  static synchronized Path nodeServers() throws IOException, InterruptedException {
    String node = find("node", "Node.js 18 or later",
        "apt-get install -y nodejs npm, or a Node.js 18+ from nodejs.org on the PATH");
    if (!npmDone) {
      Path source = MODULE.resolve("src/test/node");
      Files.createDirectories(NODE_DIR);
      for (String file : List.of("package.json", "package-lock.json", "servers.js")) {
        Files.copy(source.resolve(file), NODE_DIR.resolve(file),
            StandardCopyOption.REPLACE_EXISTING);
      }
      // npm ci again only when the lock file changed since the last complete install.
      byte[] lock = Files.readAllBytes(source.resolve("package-lock.json"));
      Path installed = NODE_DIR.resolve("node_modules/.headway-installed-lock.json");
      if (!Files.exists(installed)
          || !java.util.Arrays.equals(lock, Files.readAllBytes(installed))) {
        String npm = find("npm", "npm (Node.js's package manager)",
            "apt-get install -y npm, or a Node.js 18+ from nodejs.org on the PATH");
        run(NODE_DIR, List.of(npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"),
            "npm ci in " + NODE_DIR + " (the npm registry must be reachable, or the packages in"
                + " npm's cache)");
        Files.write(installed, lock);
      }
      npmDone = true;
    }
    return Path.of(node);
  }

  /** Debian's python3 with Flask-Limiter. */
  static synchronized Path python() throws IOException, InterruptedException {
    String python = System.getProperty("interop.python", "");
    if (python.isBlank()) {
      python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3"
          : find("python3", "python3 with Flask-Limiter",
              "apt-get install -y python3-flask-limiter");
    }
    Process check = new ProcessBuilder(python, "-c", "import flask_limiter")
        .redirectErrorStream(true).start();
    String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!check.waitFor(60, TimeUnit.SECONDS) || check.exitValue() != 0) {
      throw new IllegalStateException(python + " cannot import flask_limiter: " + out.strip()
          + String.format(INSTALL_HINT, "apt-get install -y python3-flask-limiter")
          + "; or name another interpreter with -Dinterop.python=...");
    }
    return Path.of(python);
  }

  /** The python script of the Flask servers. */
  static Path flaskServer() {
    return MODULE.resolve("src/test/python/flask_server.py");
  }

  /** The nginx executable (with limit_req, which every Debian nginx has). */
  static String nginx() {
    if (!System.getProperty("interop.nginx", "").isBlank()) {
      return find("nginx", "nginx", "apt-get install -y nginx");
    }
    for (String candidate : List.of("/usr/sbin/nginx", "/usr/local/sbin/nginx")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return find("nginx", "nginx", "apt-get install -y nginx");
  }

  private static String find(String name, String what, String install) {
    String property = System.getProperty("interop." + name, "");
    if (!property.isBlank()) {
      if (Files.isExecutable(Path.of(property))) {
        return property;
      }
      throw new IllegalStateException(what + " is needed by the interop suite and -Dinterop."
          + name + "=" + property + " is not an executable file"
          + String.format(INSTALL_HINT, install));
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new IllegalStateException(what + " is needed by the interop suite and '" + name
        + "' is not on the PATH" + String.format(INSTALL_HINT, install)
        + "; or name it with -Dinterop." + name + "=/path/to/" + name);
  }

  private static void run(Path dir, List<String> command, String what)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile(WORK, "npm-", ".log");
    Process process = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(what + ": no end after 10 minutes; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(what + " failed (exit " + process.exitValue() + "):\n"
          + Files.readString(log));
    }
    Files.move(log, dir.resolve("npm-ci.log"), StandardCopyOption.REPLACE_EXISTING);
  }
}
