package dev.headway.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What Maven Central requires of each published artifact, checked on the files this build made.
 * Always: main, sources and javadoc jars; a manifest with Implementation-Title/-Version and an
 * Automatic-Module-Name equal to the module-info's name; LICENSE and NOTICE in every jar; a POM
 * whose own or inherited metadata has name, description, url, licenses, developers and scm.
 * With {@code -Prelease}: the staged bundle under target/staging-deploy holds every published
 * artifact and nothing else, each file with a matching .md5 and .sha1, and a .asc signature when
 * a key was given ({@code -Dgpg.keyname}).
 */
class ReleaseBundleTest {
  /** Published modules: directory, artifactId, JPMS name. */
  static final List<String[]> PUBLISHED = List.of(
      new String[] {"client-core", "headway-core", "dev.headway.core"},
      new String[] {"okhttp-interceptor", "headway-okhttp", "dev.headway.okhttp"},
      new String[] {"jdk-httpclient-adapter", "headway-jdk-httpclient", "dev.headway.jdk"},
      new String[] {"micrometer", "headway-micrometer", "dev.headway.micrometer"},
      new String[] {"spring-web", "headway-spring-web", "dev.headway.spring"},
      new String[] {"spring-webflux", "headway-spring-webflux", "dev.headway.spring.webflux"},
      new String[] {"spring-boot-autoconfigure", "headway-spring-boot-autoconfigure",
          "dev.headway.spring.boot"},
      new String[] {"spring-boot-starter", "headway-spring-boot-starter",
          "dev.headway.spring.boot.starter"},
      new String[] {"feign", "headway-feign", "dev.headway.feign"},
      new String[] {"httpclient5", "headway-httpclient5", "dev.headway.httpclient5"},
      new String[] {"redis-store", "headway-redis-store", "dev.headway.redis"},
      new String[] {"cli", "headway-cli", "dev.headway.cli"},
      new String[] {"testing", "headway-testing", "dev.headway.testing"});
  static final List<String> NOT_PUBLISHED = List.of("examples", "benchmarks",
      "okhttp-interceptor-okhttp4-tests", "jackson212-tests", "no-jackson-tests",
      "hostile-server-tests", "interop-gateway", "interop-tests", "adapter-contract-tests",
      "spring-web-spring7-tests",
      "spring-webflux-spring7-tests", "httpclient5-5.5-tests", "integration-tests");

  static final Path ROOT = Path.of(property("headway.root")).normalize();
  static final String VERSION = property("headway.version");

  static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + name + " is not set: run this test"
          + " through Maven (mvn -B verify), whose integration-tests pom sets it");
    }
    return value;
  }

  @Test
  void everyPublishedJarHasItsCompanionsManifestAndLicence() throws Exception {
    for (String[] module : PUBLISHED) {
      Path target = ROOT.resolve(module[0]).resolve("target");
      String base = module[1] + "-" + VERSION;
      for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
        assertThat(target.resolve(base + suffix)).as("%s%s", base, suffix).isRegularFile();
      }
      try (JarFile jar = new JarFile(target.resolve(base + ".jar").toFile())) {
        Attributes main = jar.getManifest().getMainAttributes();
        assertThat(main.getValue("Implementation-Version")).as(base).isEqualTo(VERSION);
        assertThat(main.getValue("Implementation-Title")).as(base).startsWith("Headway");
        assertThat(main.getValue("Automatic-Module-Name")).as(base).isEqualTo(module[2]);
        assertThat(jar.getEntry("META-INF/LICENSE")).as(base + " LICENSE").isNotNull();
        assertThat(jar.getEntry("META-INF/NOTICE")).as(base + " NOTICE").isNotNull();
        try (InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
          assertThat(ModuleDescriptor.read(in).name()).as(base + " module-info").isEqualTo(module[2]);
        }
      }
    }
    assertThat(Files.readString(ROOT.resolve("LICENSE")))
        .contains("Apache License", "Version 2.0, January 2004");
  }

  @Test
  void everyPublishedPomHasCentralsMetadata() throws Exception {
    String parent = Files.readString(ROOT.resolve("pom.xml"));
    for (String[] module : PUBLISHED) {
      String pom = Files.readString(ROOT.resolve(module[0]).resolve("pom.xml"));
      assertThat(pom).as(module[0]).contains("<name>", "<description>");
      assertThat(pom).as(module[0]).contains("<artifactId>headway-parent</artifactId>");
    }
    assertMetadata("pom.xml", parent);
    assertMetadata("bom/pom.xml", Files.readString(ROOT.resolve("bom/pom.xml")));
  }

  static void assertMetadata(String name, String pom) {
    assertThat(pom).as(name).contains("<name>", "<description>", "<url>", "<licenses>",
        "<name>Apache-2.0</name>", "<developers>", "<scm>", "<connection>", "<url>");
    assertThat(pom).as(name + ": the BOM must not manage Jackson, OkHttp, Spring or Micrometer")
        .satisfies(text -> {
          if (name.startsWith("bom")) {
            assertThat(text).doesNotContain("<groupId>com.fasterxml.jackson",
                "<groupId>com.squareup", "<groupId>org.springframework", "<groupId>io.micrometer");
          }
        });
  }

  @Test
  void theStagedBundleIsCompleteWhenReleasing() throws Exception {
    if (!Boolean.parseBoolean(System.getProperty("headway.release.check"))) {
      // Not a skip: without -Prelease nothing is staged, and this checks that nothing was.
      assertThat(Path.of(property("headway.staging")).resolve("dev/headway/integration-tests"))
          .doesNotExist();
      return;
    }
    boolean signed = Boolean.parseBoolean(System.getProperty("headway.release.signed"));
    Path repo = Path.of(property("headway.staging")).resolve("dev/headway");
    List<String> artifacts = new ArrayList<>();
    PUBLISHED.forEach(m -> artifacts.add(m[1]));
    artifacts.add("headway-parent");
    artifacts.add("headway-bom");
    for (String artifact : artifacts) {
      Path dir = repo.resolve(artifact).resolve(VERSION);
      assertThat(dir).as("staged " + artifact).isDirectory();
      String stem = artifact + "-" + stagedVersion(dir);
      boolean pomOnly = artifact.equals("headway-parent") || artifact.equals("headway-bom");
      List<String> files = pomOnly ? List.of(".pom")
          : List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar");
      for (String suffix : files) {
        Path file = dir.resolve(stem + suffix);
        assertThat(file).as("staged").isRegularFile();
        assertChecksum(file, "MD5", ".md5");
        assertChecksum(file, "SHA-1", ".sha1");
        if (signed) {
          assertThat(dir.resolve(stem + suffix + ".asc")).as("signature").isRegularFile();
        }
      }
    }
    for (String artifact : NOT_PUBLISHED) {
      assertThat(repo.resolve(artifact)).as(artifact + " must not be published").doesNotExist();
    }
  }

  /** The version in the staged files' names: the newest timestamped build of a SNAPSHOT. */
  static String stagedVersion(Path dir) throws IOException {
    if (!VERSION.endsWith("-SNAPSHOT")) {
      return VERSION;
    }
    String metadata = Files.readString(dir.resolve("maven-metadata.xml"));
    Matcher timestamp = Pattern.compile("<timestamp>([^<]+)</timestamp>").matcher(metadata);
    Matcher build = Pattern.compile("<buildNumber>([^<]+)</buildNumber>").matcher(metadata);
    assertThat(timestamp.find() && build.find()).as(dir + "/maven-metadata.xml").isTrue();
    return VERSION.replace("SNAPSHOT", timestamp.group(1) + "-" + build.group(1));
  }

  static void assertChecksum(Path file, String algorithm, String suffix)
      throws IOException, NoSuchAlgorithmException {
    Path sum = file.resolveSibling(file.getFileName() + suffix);
    assertThat(sum).as("checksum").isRegularFile();
    String expected = HexFormat.of().formatHex(
        MessageDigest.getInstance(algorithm).digest(Files.readAllBytes(file)));
    assertThat(Files.readString(sum, StandardCharsets.US_ASCII).strip()).as(sum.toString())
        .startsWith(expected);
  }
}
