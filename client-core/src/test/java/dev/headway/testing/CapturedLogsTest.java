package dev.headway.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The test jar's log finder keeps lines for tests, and still prints them where it is on a class
 * path outside the build's tests (the examples and demos): a demo's warnings are not hidden.
 */
class CapturedLogsTest {
  /** A program that logs one warning through {@code System.Logger}, as Headway does. */
  public static final class LogOneWarning {
    public static void main(String[] args) {
      System.getLogger("dev.headway.demo").log(System.Logger.Level.WARNING, "held for 20 s");
      System.out.println(CapturedLogs.lines("dev.headway.demo").size() + " kept");
    }
  }

  private static Run run(String... jvmOptions) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        LogOneWarning.class.getName()));
    Process process = new ProcessBuilder(command).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child JVM did not end within 60 s");
    }
    return new Run(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  private record Run(String out, String err) {}

  @Test
  void outsideTheBuildsTestsALineIsKeptAndPrinted() throws Exception {
    Run run = run();

    assertThat(run.out()).contains("1 kept");
    assertThat(run.err()).contains("WARNING").contains("held for 20 s");
  }

  @Test
  void underTheBuildsTestsALineIsOnlyKept() throws Exception {
    Run run = run("-Dheadway.testing.logs=captured");

    assertThat(run.out()).contains("1 kept");
    assertThat(run.err()).doesNotContain("held for 20 s");
  }
}
