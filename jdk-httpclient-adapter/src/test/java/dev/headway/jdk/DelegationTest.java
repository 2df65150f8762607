package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wrapper answers every accessor and lifecycle method from its delegate. */
class DelegationTest {
  private final VirtualClock clock = VirtualClock.create();

  private RateLimitedHttpClient wrap(HttpClient delegate) {
    return RateLimitedHttpClient.wrap(delegate,
        Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).build());
  }

  @Test
  void everyAccessorReturnsTheDelegatesValue() throws Exception {
    Java21LikeClient delegate = new Java21LikeClient();
    RateLimitedHttpClient client = wrap(delegate);

    assertThat(client.cookieHandler()).containsSame(delegate.cookies);
    assertThat(client.connectTimeout()).contains(Duration.ofMillis(1234));
    assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.NORMAL);
    assertThat(client.proxy()).containsSame(delegate.proxy);
    assertThat(client.sslContext()).isSameAs(delegate.sslContext);
    assertThat(client.sslParameters()).isSameAs(delegate.sslParameters);
    assertThat(client.authenticator()).containsSame(delegate.authenticator);
    assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(client.executor()).containsSame(delegate.executor);
    assertThatThrownBy(client::newWebSocketBuilder).hasMessage("recorded");
    assertThat(delegate.calls).containsExactly("newWebSocketBuilder");
    assertThat(client.delegate()).isSameAs(delegate);
  }

  @Test
  void wrapWithoutAPacerGivesTheClientAPacerOfItsOwn() {
    RateLimitedHttpClient a = RateLimitedHttpClient.wrap(HttpClient.newHttpClient());
    RateLimitedHttpClient b = RateLimitedHttpClient.wrap(HttpClient.newHttpClient());

    assertThat(a.pacer()).isNotNull().isNotSameAs(b.pacer());
  }

  @Test
  void java21LifecycleMethodsReachADelegateThatHasThem() throws Exception {
    Java21LikeClient delegate = new Java21LikeClient();
    RateLimitedHttpClient client = wrap(delegate);

    client.shutdown();
    client.shutdownNow();
    assertThat(client.isTerminated()).isFalse();
    delegate.terminated = true;
    assertThat(client.isTerminated()).isTrue();
    assertThat(client.awaitTermination(Duration.ofSeconds(5))).isTrue();
    client.close();

    assertThat(delegate.calls).containsExactly("shutdown", "shutdownNow", "isTerminated",
        "isTerminated", "awaitTermination PT5S", "close");
  }

  @Test
  void onAJava17DelegateTheLifecycleMethodsApplyToTheWrapperAlone() throws Exception {
    RateLimitedHttpClient client = wrap(HttpClient.newHttpClient());

    assertThat(client.isTerminated()).isFalse();
    client.close();

    assertThat(client.isTerminated()).isTrue();
    assertThat(client.awaitTermination(Duration.ofSeconds(1))).isTrue();
  }

  @Test
  void closeWorksInTryWithResourcesOnJava17() {
    RateLimitedHttpClient escaped;
    try (RateLimitedHttpClient client = wrap(HttpClient.newHttpClient())) {
      escaped = client;
    }
    assertThat(escaped.isTerminated()).isTrue();
  }
}
