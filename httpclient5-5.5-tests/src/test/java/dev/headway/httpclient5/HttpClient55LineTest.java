package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpHost;
import org.junit.jupiter.api.Test;

/**
 * Guards the build: this module really runs Headway's httpclient5 classes, as the httpclient5
 * module compiled them against the newer HttpClient the project builds with, on the HttpClient 5
 * that Spring Boot 3.5 and 4.0 manage.
 */
class HttpClient55LineTest {
  @Test
  void theTestRunUsesTheHttpClientSpringBootManages() {
    String client = System.getProperty("headway.httpclient5.expectedVersion");
    String core = System.getProperty("headway.httpcore5.expectedVersion");
    assertThat(client).as("system property headway.httpclient5.expectedVersion").isNotBlank();
    assertThat(core).as("system property headway.httpcore5.expectedVersion").isNotBlank();
    assertThat(HttpClients.class.getPackage().getImplementationVersion()).isEqualTo(client);
    assertThat(HttpHost.class.getPackage().getImplementationVersion()).isEqualTo(core);
    assertThat(client).startsWith("5.5.");
  }

  @Test
  void theAdapterUnderTestIsTheHttpClient5ModulesBuildNotARecompiledCopy() {
    URL adapter = RateLimitExecChainHandler.class.getProtectionDomain().getCodeSource()
        .getLocation();
    URL tests = HttpClient55LineTest.class.getProtectionDomain().getCodeSource().getLocation();

    assertThat(adapter).isNotEqualTo(tests);
    assertThat(adapter.getPath()).contains("httpclient5")
        .doesNotContain("httpclient5-5.5-tests");
  }
}
