package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.http.HttpHeaders;

/**
 * Guards the build: this module really runs Headway's spring-web classes, as the spring-web
 * module compiled them against Spring 6.2, on a Spring Framework 7 class path.
 */
class Spring7LineTest {
  @Test
  void theTestRunUsesTheSpringLineTheBuildSelected() {
    String expected = System.getProperty("headway.spring.expectedLine");
    assertThat(expected).as("system property headway.spring.expectedLine").isNotBlank();
    assertThat(SpringVersion.getVersion()).startsWith(expected);
    // The change that broke Headway's first Spring adapter: Spring 7's HttpHeaders is no Map.
    assertThat(Map.class.isAssignableFrom(HttpHeaders.class)).isFalse();
  }

  @Test
  void theAdapterUnderTestIsTheSpringWebModulesBuildNotARecompiledCopy() {
    URL adapter = RateLimitClientHttpRequestInterceptor.class.getProtectionDomain()
        .getCodeSource().getLocation();
    URL tests = Spring7LineTest.class.getProtectionDomain().getCodeSource().getLocation();

    assertThat(adapter).isNotEqualTo(tests);
    assertThat(adapter.getPath()).contains("spring-web")
        .doesNotContain("spring-web-spring7-tests");
  }
}
