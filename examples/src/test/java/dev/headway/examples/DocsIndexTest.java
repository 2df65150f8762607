package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The manual stays navigable: docs/index.md links every page under docs/, and every relative link
 * of the README and the docs points to a file that exists.
 */
class DocsIndexTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]*)(#[^)\\s]*)?\\)");
  private static final Pattern COMMENT = Pattern.compile("(?s)<!--.*?-->");

  @Test
  void theIndexLinksEveryPage() throws Exception {
    Path docs = DocsCodeBlocksTest.repositoryRoot().resolve("docs");
    String index = COMMENT.matcher(Files.readString(docs.resolve("index.md"),
        StandardCharsets.UTF_8)).replaceAll("");
    List<String> linked = new ArrayList<>();
    Matcher link = LINK.matcher(index);
    while (link.find()) {
      linked.add(link.group(1));
    }
    try (Stream<Path> pages = Files.list(docs)) {
      assertThat(pages.map(p -> p.getFileName().toString())
          .filter(name -> name.endsWith(".md") && !name.equals("index.md")))
          .as("pages under docs/ that docs/index.md does not link (outside comments)")
          .allSatisfy(name -> assertThat(linked).contains(name));
    }
  }

  @Test
  void everyRelativeLinkPointsToAFile() throws Exception {
    Path root = DocsCodeBlocksTest.repositoryRoot();
    List<String> broken = new ArrayList<>();
    for (Path file : DocsCodeBlocksTest.markdownFiles(root)) {
      String text = COMMENT.matcher(Files.readString(file, StandardCharsets.UTF_8)).replaceAll("");
      Matcher link = LINK.matcher(text);
      while (link.find()) {
        String target = link.group(1);
        if (target.isEmpty() || target.contains("://") || target.startsWith("mailto:")) {
          continue;
        }
        if (!Files.exists(file.getParent().resolve(target).normalize())) {
          broken.add(root.relativize(file) + " -> " + target);
        }
      }
    }
    assertThat(broken).as("relative links to files that do not exist").isEmpty();
  }
}
