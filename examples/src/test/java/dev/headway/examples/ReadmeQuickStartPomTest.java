package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's Install pom is the consumer project {@code integration-tests/src/it/quick-start}
 * (which {@code mvn verify} builds with Maven's default plugins and runs), line for line, so the
 * pom a new user copies cannot rot: the only difference allowed is the Headway version, which the
 * consumer project takes from the build ({@code @project.version@}).
 */
class ReadmeQuickStartPomTest {
  private static final Pattern INSTALL_XML =
      Pattern.compile("(?s)\n## Install\n.*?```xml\n(.*?)```");

  @Test
  void theReadmesInstallPomIsTheQuickStartConsumerProject() throws Exception {
    Path root = DocsCodeBlocksTest.repositoryRoot();
    String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
    Matcher block = INSTALL_XML.matcher(readme);
    assertThat(block.find()).as("an ```xml block in the README's ## Install section")
        .isTrue();
    Matcher parent = Pattern.compile(
        "<artifactId>headway-parent</artifactId>\\s*<version>([^<]+)<")
        .matcher(Files.readString(root.resolve("pom.xml"), StandardCharsets.UTF_8));
    assertThat(parent.find()).as("the parent pom's version").isTrue();
    String version = parent.group(1);
    List<String> shown = stripped(block.group(1).replace(version, "@project.version@"));
    List<String> consumer = stripped(Files.readString(
        root.resolve("integration-tests/src/it/quick-start/pom.xml"), StandardCharsets.UTF_8));
    assertThat(shown).as("the README's Install pom").isNotEmpty();
    assertThat(String.join("\n", consumer)).as("integration-tests/src/it/quick-start/pom.xml")
        .contains(String.join("\n", shown));
  }

  private static List<String> stripped(String text) {
    return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
  }
}
