package dev.headway.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Checks that the fuzz tests' regression run in {@code mvn verify} is real: every
 * {@link FuzzTest} runs on the empty input and on every file of its inputs directory, none is
 * skipped, and a finding fails the test. Without this a fuzz test could pass while running nothing
 * (a renamed inputs directory, a JDK Jazzer does not support, a skip), which would look the same
 * in a build log as a clean regression run.
 *
 * <p>It runs the fuzz test classes through the JUnit Platform launcher and watches every
 * invocation. The build also runs them on their own, so a failure there is reported twice; the
 * cost is a few seconds.
 */
class FuzzRegressionModeTest {

  @BeforeAll
  static void regressionModeOnly() {
    String fuzz = System.getenv("JAZZER_FUZZ");
    Assumptions.assumeTrue(fuzz == null || fuzz.isEmpty(),
        "JAZZER_FUZZ is set: this is a fuzzing run (docs/fuzzing.md), not a regression run");
  }

  @Test
  void everyFuzzTestRunsOnEveryInputOfItsCorpusAndPasses() throws IOException {
    for (Class<?> fuzzTests : List.of(StructuredFieldFuzzTest.class, SignalParserFuzzTest.class,
        PacerSequenceFuzzTest.class)) {
      Run run = run(fuzzTests);
      assertThat(run.failures).as("failures of %s", fuzzTests.getSimpleName()).isEmpty();
      assertThat(run.skipped).as("skipped in %s", fuzzTests.getSimpleName()).isEmpty();
      for (Method method : fuzzMethods(fuzzTests)) {
        TreeSet<String> expected = expectedInputs(fuzzTests, method);
        assertThat(expected).as("%s#%s has a seed corpus", fuzzTests.getSimpleName(),
            method.getName()).hasSizeGreaterThan(1);
        assertThat(run.inputsOf(method.getName()))
            .as("inputs %s#%s ran on", fuzzTests.getSimpleName(), method.getName())
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void aFindingInTheCorpusFailsTheTest() throws IOException {
    Run run = run(FuzzCanary.class);
    assertThat(run.inputsOf("plantedBug"))
        .containsExactly("<empty input>", "crash-planted", "harmless-1", "harmless-2");
    assertThat(run.failures).containsOnlyKeys("crash-planted");
    assertThat(run.failures.get("crash-planted"))
        .as("Jazzer's report of the finding")
        .hasRootCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage(FuzzCanary.PLANTED_BUG);
    assertThat(run.skipped).isEmpty();
  }

  /** What one launcher run saw: invocations by method, failures and skips by input name. */
  private static final class Run implements TestExecutionListener {
    final Map<String, TreeSet<String>> inputsByMethod = new TreeMap<>();
    final Map<String, Throwable> failures = new TreeMap<>();
    final List<String> skipped = new ArrayList<>();

    TreeSet<String> inputsOf(String method) {
      return inputsByMethod.getOrDefault(method, new TreeSet<>());
    }

    @Override
    public void executionStarted(TestIdentifier test) {
      if (test.isTest()) {
        inputsByMethod.computeIfAbsent(methodOf(test), k -> new TreeSet<>())
            .add(test.getDisplayName());
      }
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
      skipped.add(test.getDisplayName() + ": " + reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
      if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
        failures.put(test.getDisplayName(), result.getThrowable().orElse(
            new AssertionError(result.getStatus().toString())));
      }
    }

    /** The method name in the unique id's test-template segment: "plantedBug(byte[])". */
    private static String methodOf(TestIdentifier test) {
      for (UniqueId.Segment segment : UniqueId.parse(test.getUniqueId()).getSegments()) {
        if (segment.getType().equals("test-template")) {
          String value = segment.getValue();
          return value.substring(0, value.indexOf('('));
        }
      }
      return test.getDisplayName();
    }
  }

  private static Run run(Class<?> testClass) {
    Run run = new Run();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(LauncherDiscoveryRequestBuilder.request()
        .selectors(selectClass(testClass)).build(), run);
    return run;
  }

  private static List<Method> fuzzMethods(Class<?> testClass) {
    List<Method> methods = new ArrayList<>();
    for (Method method : testClass.getDeclaredMethods()) {
      if (method.isAnnotationPresent(FuzzTest.class)) {
        methods.add(method);
      }
    }
    assertThat(methods).as("fuzz tests in %s", testClass.getSimpleName()).isNotEmpty();
    return methods;
  }

  /**
   * The inputs Jazzer's regression mode must run: the empty input, the files directly in
   * {@code <Class>Inputs/} and every file under {@code <Class>Inputs/<method>/}.
   */
  private static TreeSet<String> expectedInputs(Class<?> testClass, Method method)
      throws IOException {
    TreeSet<String> names = new TreeSet<>();
    names.add("<empty input>");
    Optional<Path> classDir = resourceDir(testClass, testClass.getSimpleName() + "Inputs");
    if (classDir.isPresent()) {
      try (Stream<Path> files = Files.list(classDir.get())) {
        files.filter(Files::isRegularFile).forEach(f -> names.add(f.getFileName().toString()));
      }
      Path methodDir = classDir.get().resolve(method.getName());
      if (Files.isDirectory(methodDir)) {
        try (Stream<Path> files = Files.walk(methodDir)) {
          files.filter(Files::isRegularFile).forEach(f -> names.add(f.getFileName().toString()));
        }
      }
    }
    return names;
  }

  private static Optional<Path> resourceDir(Class<?> testClass, String name) {
    URL url = testClass.getResource(name);
    if (url == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Paths.get(url.toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
