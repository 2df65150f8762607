package dev.headway.okhttp.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Java examples of docs/okhttp.md are copies of compiled, tested code: the region between
 * {@code // docs/okhttp.md:NAME:begin} and {@code :end} of a source file in this package must
 * equal one {@code ```java} block of the doc.
 */
class DocsTest {
  @Test
  void theQuickStartClientSendsTheRequestAndReturnsTheResponse() throws Exception {
    try (Harness harness = Harness.start()) {
      harness.fallback(Reply.status(200).body("hello"));
      assertThat(QuickStart.fetch(harness.url("/hello").toString())).isEqualTo("200 hello");
      assertThat(harness.requestCount()).isEqualTo(1);
      QuickStart.CLIENT.connectionPool().evictAll();
      assertThat(QuickStart.CLIENT.connectionPool().connectionCount()).isZero();
    }
  }

  @Test
  void theRetrofitQuickStartCallsThroughTheInterceptor() throws Exception {
    try (Harness harness = Harness.start()) {
      harness.fallback(Reply.status(200).body("{\"name\":\"okhttp\"}"));
      assertThat(RetrofitQuickStart.describe(harness.url("/").toString()))
          .startsWith("200 {\"name\":\"okhttp\"} quota: ");
      assertThat(harness.sent()).singleElement()
          .satisfies(s -> assertThat(s.request().target()).isEqualTo("/repos/square/okhttp"));
    }
  }

  @ParameterizedTest
  @CsvSource({"QuickStart.java, quick-start", "RetrofitQuickStart.java, retrofit"})
  void theDocBlockIsAVerbatimCopyOfTheTestedSource(String file, String region)
      throws IOException {
    Path root = projectRoot();
    String source = Files.readString(root.resolve(
        "okhttp-interceptor/src/test/java/dev/headway/okhttp/docs/" + file),
        StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("// docs/okhttp.md:" + region + ":begin\n(.*?)"
        + "// docs/okhttp.md:" + region + ":end", Pattern.DOTALL).matcher(source);
    assertThat(m.find()).as("region " + region + " in " + file).isTrue();
    String tested = m.group(1);

    String doc = Files.readString(root.resolve("docs/okhttp.md"), StandardCharsets.UTF_8);
    assertThat(javaBlocks(doc)).as("```java blocks of docs/okhttp.md").contains(tested);
  }

  static List<String> javaBlocks(String markdown) {
    List<String> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  static Path projectRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/okhttp.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("a parent directory holding docs/okhttp.md").isNotNull();
    return dir;
  }
}
