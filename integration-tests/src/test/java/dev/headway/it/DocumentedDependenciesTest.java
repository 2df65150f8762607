package dev.headway.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Maven snippets of the documentation name artifacts that exist, and OkHttp 5 for Maven as
 * {@code okhttp-jvm} at the version this build (and its class-path consumer project) uses.
 */
class DocumentedDependenciesTest {
  static final Pattern XML_BLOCK = Pattern.compile("(?ms)^```xml\\n(.*?)^```");
  static final Pattern DEPENDENCY = Pattern.compile("(?s)<dependency>(.*?)</dependency>");
  static final Set<String> HEADWAY = Set.of("headway-bom", "headway-core", "headway-okhttp",
      "headway-jdk-httpclient", "headway-spring-web", "headway-spring-webflux",
      "headway-spring-boot-autoconfigure", "headway-spring-boot-starter", "headway-feign", "headway-httpclient5", "headway-micrometer",
      "headway-redis-store", "headway-cli", "headway-testing");

  record Dependency(String file, String groupId, String artifactId, String version) {}

  static List<Dependency> documented() throws IOException {
    Path root = ReleaseBundleTest.ROOT;
    List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    List<Dependency> found = new ArrayList<>();
    for (Path file : files) {
      Matcher block = XML_BLOCK.matcher(Files.readString(file));
      while (block.find()) {
        Matcher dependency = DEPENDENCY.matcher(block.group(1));
        while (dependency.find()) {
          String xml = dependency.group(1);
          found.add(new Dependency(root.relativize(file).toString(), tag(xml, "groupId"),
              tag(xml, "artifactId"), tag(xml, "version")));
        }
      }
    }
    return found;
  }

  static String tag(String xml, String name) {
    Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(xml);
    return m.find() ? m.group(1).strip() : "";
  }

  @Test
  void headwayArtifactsInTheDocsExistAtThisVersionAndOkHttp5IsOkHttpJvm() throws IOException {
    List<Dependency> dependencies = documented();
    String okhttp = ReleaseBundleTest.property("headway.okhttp.version");
    assertThat(dependencies).filteredOn(d -> d.groupId().equals("dev.headway"))
        .isNotEmpty()
        .allSatisfy(d -> assertThat(HEADWAY).as(d.toString()).contains(d.artifactId()))
        .allSatisfy(d -> assertThat(d.version()).as(d + ": no version (the BOM's) or this one")
            .isIn("", ReleaseBundleTest.property("headway.version")));
    assertThat(dependencies)
        .filteredOn(d -> d.groupId().equals("com.squareup.okhttp3")
            && d.version().startsWith("5."))
        .isNotEmpty()
        .allSatisfy(d -> {
          assertThat(d.artifactId()).as(d + ": OkHttp 5 on Maven is okhttp-jvm")
              .isEqualTo("okhttp-jvm");
          assertThat(d.version()).as(d.toString()).isEqualTo(okhttp);
        });
    assertThat(dependencies).filteredOn(d -> d.artifactId().equals("okhttp-jvm"))
        .extracting(Dependency::file).contains("README.md", "docs/okhttp.md");
  }
}
