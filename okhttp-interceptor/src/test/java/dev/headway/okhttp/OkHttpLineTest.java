package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import okhttp3.OkHttp;
import org.junit.jupiter.api.Test;

/** Guards the build: each test run really uses the OkHttp line it claims to test. */
class OkHttpLineTest {
  @Test
  void theTestRunUsesTheOkHttpLineTheBuildSelected() throws ReflectiveOperationException {
    String expected = System.getProperty("headway.okhttp.expectedLine");
    assertThat(expected).as("system property headway.okhttp.expectedLine").isNotBlank();
    // Read reflectively: the compiler inlines the constant of the OkHttp it compiled against.
    String version = (String) OkHttp.class.getField("VERSION").get(null);
    assertThat(version).startsWith(expected);
  }
}
