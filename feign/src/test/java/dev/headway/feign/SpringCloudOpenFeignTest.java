package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import feign.Capability;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.openfeign.EnableFeignClients;
import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * The capability in a real Spring Cloud OpenFeign application, set up as docs/feign.md says: a
 * {@link Capability} bean, and a {@code @FeignClient} that knows nothing of Headway. Spring Cloud
 * OpenFeign adds the bean to the client it builds, so a 429 with {@code Retry-After: 30} is
 * retried once, 30 s later (virtual time), with Spring Cloud's default retryer (never) and its
 * own contract and decoder.
 */
@Timeout(60)
class SpringCloudOpenFeignTest {
  static final VirtualClock CLOCK = VirtualClock.create().autoAdvance(true);

  private final MockWebServer server = new MockWebServer();

  /** A client of the application: plain Spring Cloud OpenFeign, no Headway in sight. */
  @FeignClient(name = "items", url = "${items.url}")
  interface Items {
    @GetMapping("/items")
    String items();
  }

  /** The application's configuration: the pacer and the capability as beans. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableFeignClients(clients = Items.class)
  static class Application {
    @Bean
    Pacer pacer() {
      return Pacer.builder().ticker(CLOCK).wallClock(CLOCK).scheduler(CLOCK)
          .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
          .maxWait(Duration.ofSeconds(60)).build();
    }

    @Bean
    Capability headway(Pacer pacer) {
      return RateLimitCapability.create(pacer);
    }
  }

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void aFeignClientBeanWaitsTheServersRetryAfterInFull() throws Exception {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "30")
        .body("slow down").build());
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    Duration before = CLOCK.elapsed();

    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .properties("items.url=" + server.url("/"), "spring.main.banner-mode=off")
        .run()) {
      String items = context.getBean(Items.class).items();

      assertThat(items).isEqualTo("ok");
      assertThat(server.getRequestCount()).isEqualTo(2);
      assertThat(CLOCK.elapsed().minus(before))
          .isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
    }
  }
}
