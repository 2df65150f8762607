package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.http.HttpHeaders;

/**
 * Guards the build: this module really runs Headway's spring-webflux classes, as the
 * spring-webflux module compiled them against Spring 6.2, on a Spring Framework 7 class path.
 */
class WebFluxSpring7LineTest {
  @Test
  void theTestRunUsesTheSpringLineTheBuildSelected() {
    String expected = System.getProperty("headway.spring.expectedLine");
    assertThat(expected).as("system property headway.spring.expectedLine").isNotBlank();
    assertThat(SpringVersion.getVersion()).startsWith(expected);
    assertThat(Map.class.isAssignableFrom(HttpHeaders.class)).isFalse();
  }

  @Test
  void theAdapterUnderTestIsTheSpringWebfluxModulesBuildNotARecompiledCopy() {
    URL adapter = RateLimitExchangeFilterFunction.class.getProtectionDomain()
        .getCodeSource().getLocation();
    URL tests = WebFluxSpring7LineTest.class.getProtectionDomain().getCodeSource().getLocation();

    assertThat(adapter).isNotEqualTo(tests);
    assertThat(adapter.getPath()).contains("spring-webflux")
        .doesNotContain("spring-webflux-spring7-tests");
  }
}
