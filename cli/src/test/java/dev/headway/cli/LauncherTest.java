package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code headway} launcher at the repository root, run by {@code sh} in a copy of the
 * repository layout with a stand-in {@code mvn} (records its arguments, touches the jar) and
 * {@code java} (records its arguments): it builds the jar when it is missing or older than a
 * source, runs it as it is otherwise, and its build command is the one docs/cli.md quotes.
 */
@DisabledOnOs(OS.WINDOWS)
class LauncherTest {
  static final Instant T0 = Instant.parse("2025-01-06T10:00:00Z");

  @TempDir Path root;
  Path bin;
  Path jar;
  Path source;

  @BeforeEach
  void layOut() throws IOException {
    Files.copy(Path.of("..", "headway"), root.resolve("headway"));
    bin = Files.createDirectories(root.resolve("bin"));
    script(bin.resolve("mvn"), "echo \"$@\" >> \"$ROOT/mvn.log\"\n"
        + "mkdir -p \"$ROOT/cli/target\" && : > \"$ROOT/cli/target/headway.jar\"\n"
        + "touch \"$ROOT/cli/target/headway.jar\"\n");
    script(bin.resolve("java"), "echo \"$@\" >> \"$ROOT/java.log\"\n");
    jar = root.resolve("cli/target/headway.jar");
    source = root.resolve("client-core/src/main/java/dev/headway/Pacer.java");
    Files.createDirectories(source.getParent());
    Files.createDirectories(root.resolve("cli/src/main/java"));
    Files.writeString(source, "class Pacer {}");
    Files.setLastModifiedTime(source, FileTime.from(T0));
  }

  private static void script(Path path, String body) throws IOException {
    Files.writeString(path, "#!/bin/sh\n" + body, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private List<String> run() throws Exception {
    return run(null);
  }

  private List<String> run(String mavenArgs) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("sh", root.resolve("headway").toString(),
        "explain", "--format", "text").redirectErrorStream(true);
    builder.environment().remove("MAVEN_ARGS");
    if (mavenArgs != null) {
      builder.environment().put("MAVEN_ARGS", mavenArgs);
    }
    builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    builder.environment().put("ROOT", root.toString());
    builder.environment().put("JAVA", bin.resolve("java").toString());
    Process process = builder.start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher ended").isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return lines("mvn.log");
  }

  private List<String> lines(String log) throws IOException {
    Path path = root.resolve(log);
    return Files.exists(path) ? Files.readAllLines(path) : List.of();
  }

  @Test
  void buildsAMissingJarWithTheDocumentedCommand() throws Exception {
    assertThat(run()).containsExactly("-B -q -pl cli -am package -DskipTests "
        + "-Dmaven.javadoc.skip");
    assertThat(lines("java.log")).containsExactly("-jar " + jar + " explain --format text");
    String doc = Files.readString(Path.of("..", "docs", "cli.md"), StandardCharsets.UTF_8);
    assertThat(doc).contains("`mvn -B -q -pl cli -am package -DskipTests -Dmaven.javadoc.skip`");
  }

  // Regression: the launcher built with plain mvn, so a build kept out of ~/.m2 with
  // -Dmaven.repo.local (as docs/getting-started.md suggests) was not honoured.
  @Test
  void passesMavenArgsToTheBuild() throws Exception {
    assertThat(run("-Dmaven.repo.local=/tmp/headway-repo -o")).containsExactly(
        "-Dmaven.repo.local=/tmp/headway-repo -o -B -q -pl cli -am package -DskipTests "
            + "-Dmaven.javadoc.skip");
  }

  @Test
  void runsAnUpToDateJarWithoutBuilding() throws Exception {
    Files.createDirectories(jar.getParent());
    Files.writeString(jar, "");
    Files.setLastModifiedTime(jar, FileTime.from(T0.plusSeconds(60)));

    assertThat(run()).isEmpty();
    assertThat(lines("java.log")).hasSize(1);
  }

  // Regression: the launcher built the jar only when missing, so an edit to the sources was
  // silently not in the jar it ran.
  @Test
  void rebuildsAJarOlderThanASource() throws Exception {
    Files.createDirectories(jar.getParent());
    Files.writeString(jar, "");
    Files.setLastModifiedTime(jar, FileTime.from(T0.minusSeconds(60)));

    assertThat(run()).hasSize(1);
    assertThat(lines("java.log")).hasSize(1);
  }
}
