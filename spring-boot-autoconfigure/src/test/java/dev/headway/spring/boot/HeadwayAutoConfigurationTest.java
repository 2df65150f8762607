package dev.headway.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.micrometer.HeadwayMetrics;
import dev.headway.redis.RedisQuotaStore;
import dev.headway.testing.VirtualClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.autoconfigure.web.client.RestClientAutoConfiguration;
import org.springframework.boot.autoconfigure.web.client.RestTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.function.client.WebClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.client.RestTemplateBuilder;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The auto-configuration in a real Spring context (Spring Boot 3.5 on the class path, with Boot
 * 4's customizer modules too), calling a local server through the builders Boot hands out. Waits
 * pass on the virtual clock, given to the pacer by a {@link HeadwayPacerCustomizer}.
 */
@Timeout(60)
class HeadwayAutoConfigurationTest {
  private static final String[] HEADWAY = {
      "dev.headway.spring.boot.HeadwayAutoConfiguration",
      "dev.headway.spring.boot.HeadwayClientsAutoConfiguration",
      "dev.headway.spring.boot.HeadwayMetricsAutoConfiguration",
      "dev.headway.spring.boot.HeadwayEndpointAutoConfiguration"};

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(HttpMessageConvertersAutoConfiguration.class,
          RestClientAutoConfiguration.class, RestTemplateAutoConfiguration.class,
          WebClientAutoConfiguration.class))
      .withConfiguration(AutoConfigurations.of(classes(HEADWAY)))
      .withBean("virtualClock", HeadwayPacerCustomizer.class,
          () -> builder -> builder.ticker(clock).wallClock(clock).scheduler(clock));

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private static Class<?>[] classes(String... names) {
    Class<?>[] classes = new Class<?>[names.length];
    for (int i = 0; i < names.length; i++) {
      try {
        classes[i] = Class.forName(names[i]);
      } catch (ClassNotFoundException e) {
        throw new AssertionError(e);
      }
    }
    return classes;
  }

  private void enqueue(int code, String body, String... headers) {
    MockResponse.Builder builder = new MockResponse.Builder().code(code).body(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.addHeader(headers[i], headers[i + 1]);
    }
    server.enqueue(builder.build());
  }

  @Test
  void onePacerFromThePropertiesClosedWithTheContext() {
    Pacer[] seen = new Pacer[1];
    runner.withPropertyValues("headway.max-wait=5s", "headway.max-attempts=4",
        "headway.strategy=spread", "headway.jitter=none").run(context -> {
          assertThat(context).hasSingleBean(Pacer.class);
          Pacer pacer = context.getBean(Pacer.class);
          seen[0] = pacer;
          assertThat(pacer.maxWait()).isEqualTo(Duration.ofSeconds(5));
          assertThat(pacer.maxAttempts()).isEqualTo(4);
          assertThat(pacer.strategy()).isEqualTo(PacingStrategy.spread());
          assertThat(pacer.jitter()).isEqualTo(Jitter.none());
          assertThat(pacer.isClosed()).isFalse();
        });
    assertThat(seen[0].isClosed()).as("closed on context shutdown").isTrue();
  }

  @Test
  void restClientFromBootsBuilderRetriesA429AfterItsRetryAfter() {
    clock.autoAdvance(true);
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");
    runner.withPropertyValues("headway.jitter=none").run(context -> {
      RestClient client = context.getBean(RestClient.Builder.class).build();
      long before = clock.read();
      String body = client.get().uri(server.url("/items").toString()).retrieve()
          .body(String.class);
      assertThat(body).isEqualTo("ok");
      assertThat(server.getRequestCount()).isEqualTo(2);
      assertThat(Duration.ofNanos(clock.read() - before)).isGreaterThanOrEqualTo(
          Duration.ofSeconds(2));
    });
  }

  /**
   * An application that adds the interceptor itself, as docs/spring.md shows, to the builder the
   * starter already customized: each request is paced once. Before, it was paced twice, and the
   * last request the server's window allowed failed with RateLimitedException.
   */
  @Test
  void restClientFromBootsBuilderWithTheApplicationsOwnInterceptorIsPacedOnce() {
    enqueue(200, "one", "RateLimit-Policy", "\"fixed\";q=2;w=60",
        "RateLimit", "\"fixed\";r=1;t=60");
    enqueue(200, "two");
    runner.withPropertyValues("headway.max-wait=10s").run(context -> {
      RestClient client = context.getBean(RestClient.Builder.class)
          .requestInterceptor(dev.headway.spring.RateLimitClientHttpRequestInterceptor.create(
              context.getBean(Pacer.class)))
          .build();
      String url = server.url("/items").toString();
      assertThat(client.get().uri(url).retrieve().body(String.class)).isEqualTo("one");
      assertThat(client.get().uri(url).retrieve().body(String.class)).isEqualTo("two");
      assertThat(server.getRequestCount()).isEqualTo(2);
    });
  }

  /**
   * The starter's interceptor comes first on Boot's builder, and Spring runs the interceptors after
   * one that sends again only for the first attempt: a header an interceptor added to the builder
   * puts on a copy of the request (an {@code HttpRequestWrapper}) is missing from the retry. Added
   * in a {@code RestClientCustomizer} ordered before the starter's, the interceptor comes before
   * Headway's, and the retry sends what the first attempt sent, as docs/spring-boot.md says.
   */
  @Test
  void aHeaderOfAnInterceptorOfACustomizerOrderedFirstIsOnTheRetryToo() throws Exception {
    clock.autoAdvance(true);
    enqueue(429, "slow down", "Retry-After", "1");
    enqueue(200, "ok");
    runner.withPropertyValues("headway.jitter=none")
        .withBean("early", OrderedRestClientCustomizer.class, OrderedRestClientCustomizer::new)
        .run(context -> {
          RestClient client = context.getBean(RestClient.Builder.class)
              .requestInterceptor((request, body, execution) ->
                  OrderedRestClientCustomizer.withHeader("X-Late", request, body, execution))
              .build();

          assertThat(client.get().uri(server.url("/items").toString()).retrieve()
              .body(String.class)).isEqualTo("ok");
          var first = server.takeRequest().getHeaders();
          var retry = server.takeRequest().getHeaders();
          assertThat(first.get("X-Early")).isEqualTo("secret");
          assertThat(first.get("X-Late")).isEqualTo("secret");
          assertThat(retry.get("X-Early")).isEqualTo("secret");
          assertThat(retry.get("X-Late")).as("added to the builder, after the starter's").isNull();
        });
  }

  /**
   * Adds an interceptor that sends a copy of the request with an {@code X-Early} header, ordered
   * before the starter's customizer (which has no order: it comes last).
   */
  static final class OrderedRestClientCustomizer
      implements org.springframework.boot.web.client.RestClientCustomizer,
      org.springframework.core.Ordered {
    static org.springframework.http.client.ClientHttpResponse withHeader(String name,
        org.springframework.http.HttpRequest request, byte[] body,
        org.springframework.http.client.ClientHttpRequestExecution execution)
        throws java.io.IOException {
      org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
      headers.putAll(request.getHeaders());
      headers.set(name, "secret");
      return execution.execute(new org.springframework.http.client.support.HttpRequestWrapper(
          request) {
        @Override
        public org.springframework.http.HttpHeaders getHeaders() {
          return headers;
        }
      }, body);
    }

    @Override
    public void customize(RestClient.Builder builder) {
      builder.requestInterceptor((request, body, execution) ->
          withHeader("X-Early", request, body, execution));
    }

    @Override
    public int getOrder() {
      return 0;
    }
  }

  /** The same for a {@code WebClient} with the application's own filter. */
  @Test
  void webClientFromBootsBuilderWithTheApplicationsOwnFilterIsPacedOnce() {
    enqueue(200, "one", "RateLimit-Policy", "\"fixed\";q=2;w=60",
        "RateLimit", "\"fixed\";r=1;t=60");
    enqueue(200, "two");
    runner.withPropertyValues("headway.max-wait=10s").run(context -> {
      WebClient client = context.getBean(WebClient.Builder.class)
          .filter(dev.headway.spring.webflux.RateLimitExchangeFilterFunction.create(
              context.getBean(Pacer.class)))
          .build();
      String url = server.url("/items").toString();
      assertThat(client.get().uri(url).retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("one");
      assertThat(client.get().uri(url).retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("two");
      assertThat(server.getRequestCount()).isEqualTo(2);
    });
  }

  @Test
  void restTemplateFromBootsBuilderIsPacedByADeclaredPolicy() {
    enqueue(200, "one");
    enqueue(200, "two");
    runner.withPropertyValues("headway.max-wait=10s",
        "headway.policies[0].host=http://" + server.getHostName() + ":" + server.getPort(),
        "headway.policies[0].name=hourly", "headway.policies[0].limit=1",
        "headway.policies[0].period=1h").run(context -> {
          var template = context.getBean(RestTemplateBuilder.class).build();
          String url = server.url("/items").toString();
          assertThat(template.getForObject(url, String.class)).isEqualTo("one");
          // The second would wait about an hour, past max-wait: refused, never sent.
          assertThatThrownBy(() -> template.getForObject(url, String.class))
              .isInstanceOf(ResourceAccessException.class)
              .hasCauseInstanceOf(RateLimitedException.class);
          assertThat(server.getRequestCount()).isEqualTo(1);
          assertThat(context.getBean(Pacer.class).quota(server.url("/").uri())
              .policy("hourly")).isPresent();
        });
  }

  /** Feign, built as Spring Cloud OpenFeign builds a {@code @FeignClient}: with every Capability bean. */
  interface Items {
    @feign.RequestLine("GET /items")
    String items();
  }

  private static Items feignClient(org.springframework.context.ApplicationContext context,
      String url) {
    feign.Feign.Builder builder = feign.Feign.builder().retryer(feign.Retryer.NEVER_RETRY);
    context.getBeansOfType(feign.Capability.class).values().forEach(builder::addCapability);
    return builder.target(Items.class, url);
  }

  @Test
  void aFeignClientGivenTheContextsCapabilitiesIsPacedByADeclaredPolicy() {
    enqueue(200, "one");
    enqueue(200, "two");
    runner.withPropertyValues("headway.max-wait=10s",
        "headway.policies[0].host=http://" + server.getHostName() + ":" + server.getPort(),
        "headway.policies[0].name=hourly", "headway.policies[0].limit=1",
        "headway.policies[0].period=1h").run(context -> {
          Items items = feignClient(context, server.url("/").toString());
          assertThat(items.items()).isEqualTo("one");
          // The second would wait about an hour, past max-wait: refused, never sent.
          assertThatThrownBy(items::items).isInstanceOf(feign.RetryableException.class)
              .hasCauseInstanceOf(RateLimitedException.class);
          assertThat(server.getRequestCount()).isEqualTo(1);
        });
  }

  /** feign.md's bean, on the starter's pacer. */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class PlainCapability {
    @org.springframework.context.annotation.Bean
    feign.Capability mine(Pacer pacer) {
      return dev.headway.feign.RateLimitCapability.create(pacer);
    }
  }

  @Test
  void aCapabilityOfTheApplicationsReplacesTheStartersAndAPlainOnePacesOnce() {
    enqueue(200, "one");
    enqueue(200, "two");
    runner.withBean("mine", dev.headway.feign.RateLimitCapability.class,
        () -> dev.headway.feign.RateLimitCapability.create(Pacer.create()))
        .run(context -> assertThat(context.getBeansOfType(
            dev.headway.feign.RateLimitCapability.class)).containsOnlyKeys("mine"));
    // Declared as a feign.Capability, as feign.md showed: both beans, each request paced once.
    runner.withPropertyValues(
        "headway.policies[0].host=http://" + server.getHostName() + ":" + server.getPort(),
        "headway.policies[0].name=two", "headway.policies[0].limit=2",
        "headway.policies[0].period=1h")
        .withUserConfiguration(PlainCapability.class)
        .run(context -> {
          assertThat(context.getBeansOfType(feign.Capability.class)).hasSize(2);
          Items items = feignClient(context, server.url("/").toString());
          assertThat(items.items()).isEqualTo("one");
          assertThat(items.items()).isEqualTo("two");
          assertThat(server.getRequestCount()).isEqualTo(2);
        });
  }

  @Test
  void webClientFromBootsBuilderRetriesA429AfterItsRetryAfter() {
    enqueue(429, "slow down", "Retry-After", "2");
    enqueue(200, "ok");
    runner.withPropertyValues("headway.jitter=none").run(context -> {
      WebClient client = context.getBean(WebClient.Builder.class).build();
      java.util.concurrent.CompletableFuture<String> body = client.get()
          .uri(server.url("/items").toString()).retrieve().bodyToMono(String.class).toFuture();
      // The retry waits on the pacer's scheduler, the virtual clock: no thread is blocked.
      clock.awaitPendingTasks(1, Duration.ofSeconds(10));
      assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(2));
      clock.advanceToNextEvent();
      assertThat(body.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("ok");
      assertThat(server.getRequestCount()).isEqualTo(2);
    });
  }

  @Test
  void noWebClientCustomizerWithoutTheWebfluxAdapter() {
    runner.withClassLoader(new FilteredClassLoader("dev.headway.spring.webflux."))
        .run(context -> assertThat(context).hasBean("headwayBoot3RestClientCustomizer")
            .doesNotHaveBean("headwayBoot3WebClientCustomizer")
            .doesNotHaveBean("headwayBoot4WebClientCustomizer"));
  }

  @Test
  void aPacerOfTheApplicationReplacesTheAutoConfiguredOneAndIsTheOneTheClientsUse() {
    enqueue(200, "one");
    enqueue(200, "two");
    Pacer own = Pacer.builder().declare(dev.headway.ClientPolicy.tokenBucket("own", 1,
        Duration.ofHours(1))).maxWait(Duration.ofSeconds(1)).build();
    runner.withBean(Pacer.class, () -> own).run(context -> {
      assertThat(context).hasSingleBean(Pacer.class);
      assertThat(context.getBean(Pacer.class)).isSameAs(own);
      RestClient client = context.getBean(RestClient.Builder.class).build();
      String url = server.url("/items").toString();
      assertThat(client.get().uri(url).retrieve().body(String.class)).isEqualTo("one");
      assertThatThrownBy(() -> client.get().uri(url).retrieve().body(String.class))
          .hasCauseInstanceOf(RateLimitedException.class);
      assertThat(server.getRequestCount()).isEqualTo(1);
    });
  }

  @Test
  void customizersOfBothBootLinesWhenBothAreOnTheClassPathAndOnlyBoot3sWithoutBoot4sModules() {
    runner.run(context -> {
      assertThat(context).hasBean("headwayBoot3RestClientCustomizer")
          .hasBean("headwayBoot3RestTemplateCustomizer")
          .hasBean("headwayBoot4RestClientCustomizer")
          .hasBean("headwayBoot4RestTemplateCustomizer")
          .hasBean("headwayBoot3WebClientCustomizer")
          .hasBean("headwayBoot4WebClientCustomizer");
    });
    runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.restclient.",
            "org.springframework.boot.webclient."))
        .run(context -> assertThat(context).hasBean("headwayBoot3RestClientCustomizer")
            .hasBean("headwayBoot3WebClientCustomizer")
            .doesNotHaveBean("headwayBoot4WebClientCustomizer")
            .doesNotHaveBean("headwayBoot4RestClientCustomizer")
            .doesNotHaveBean("headwayBoot4RestTemplateCustomizer"));
  }

  @Test
  void customizeClientsFalseLeavesTheBuildersAlone() {
    enqueue(200, "one");
    enqueue(200, "two");
    runner.withPropertyValues("headway.customize-clients=false",
        "headway.policies[0].name=tiny", "headway.policies[0].limit=1",
        "headway.policies[0].period=1h").run(context -> {
          assertThat(context).hasSingleBean(Pacer.class)
              .doesNotHaveBean("headwayBoot3RestClientCustomizer")
              .doesNotHaveBean("headwayBoot4RestClientCustomizer");
          RestClient client = context.getBean(RestClient.Builder.class).build();
          String url = server.url("/items").toString();
          client.get().uri(url).retrieve().body(String.class);
          client.get().uri(url).retrieve().body(String.class);
          assertThat(server.getRequestCount()).as("unpaced").isEqualTo(2);
        });
  }

  @Test
  void badValuesFailTheStartWithTheirPropertyAndValue() {
    assertStartFails("headway.max-wait must be positive but was PT-1S", "headway.max-wait=-1s");
    assertStartFails("headway.max-attempts must be at least 1 but was 0",
        "headway.max-attempts=0");
    assertStartFails("headway.low-water must be within [0, 1] but was 1.5",
        "headway.low-water=1.5");
    assertStartFails("headway.policies[0].limit must be positive but was 0",
        "headway.policies[0].name=hourly", "headway.policies[0].limit=0",
        "headway.policies[0].period=1h");
    assertStartFails("headway.policies[0].period must be given",
        "headway.policies[0].name=hourly", "headway.policies[0].limit=5");
    assertStartFails("headway.scopes[0].policy must be given",
        "headway.scopes[0].host=api.github.com", "headway.scopes[0].route=/search/**");
    assertStartFails("headway.retry-budget.retries must be at least 1 but was 0",
        "headway.retry-budget.retries=0");
    assertStartFails("headway.retry-budget.refill-per-success must be within (0, 1] but was 2.0",
        "headway.retry-budget.refill-per-success=2");
    assertStartFails("headway.max-backoff must be at least headway.base-backoff (PT10S) but was"
        + " PT5S", "headway.base-backoff=10s", "headway.max-backoff=5s");
  }

  @Test
  void aMissingRequiredValueIsCalledMissingAndNamedAsTheUserWritesIt() {
    // Was "headway.policies[0].limit must be positive but was 0": the user had given no 0.
    assertStartFails("headway.policies[0].limit must be given (the units per period, e.g. 5000)",
        "headway.policies[0].name=hourly", "headway.policies[0].period=1h");
    assertStartFails("headway.policies[1].limit must be given",
        "headway.policies[0].name=a", "headway.policies[0].limit=5",
        "headway.policies[0].period=1h", "headway.policies[1].name=b",
        "headway.policies[1].period=1m");
    assertStartFails("headway.policies[0].limit must be given",
        "headway.policies[0].name=hourly", "headway.policies[0].limit=",
        "headway.policies[0].period=1h");
    assertStartFails("headway.policies[0].name must be given (the policy's name, e.g. hourly)",
        "headway.policies[0].limit=5", "headway.policies[0].period=1h");
    assertStartFails("headway.scopes[0].route must be given (the requests it counts, e.g."
        + " GET /search/**)", "headway.scopes[0].host=api.github.com",
        "headway.scopes[0].policy=search");
  }

  @Test
  void aHostOrRouteThePacerCannotMatchStopsTheStartNamingItsPropertyAndValue() {
    // Was a 122-line trace from the pacer's bean, naming neither the property nor its index.
    String hostAction = "write the host (api.example.com), host and port (api.example.com:8443)"
        + " or origin (http://localhost:8080) the requests go to, without a path";
    assertStartReportsStartingWith(List.of("headway.policies[0].name=a",
        "headway.policies[0].limit=2", "headway.policies[0].period=1m",
        "headway.policies[1].name=mine", "headway.policies[1].limit=2",
        "headway.policies[1].period=1m",
        "headway.policies[1].host=http://127.0.0.1:18074/v1"),
        "headway.policies[1].host must be a host, host:port or origin but was"
            + " \"http://127.0.0.1:18074/v1\": partition \"http://127.0.0.1:18074/v1\" has more"
            + " than an origin", hostAction);
    assertStartReportsStartingWith(List.of("headway.policies[0].name=mine",
        "headway.policies[0].limit=2", "headway.policies[0].period=1m",
        "headway.policies[0].host=not a host!!"),
        "headway.policies[0].host must be a host, host:port or origin but was \"not a host!!\"",
        hostAction);
    assertStartReportsStartingWith(List.of("headway.scopes[0].host=api.x.com",
        "headway.scopes[0].route=FETCH", "headway.scopes[0].policy=search"),
        "headway.scopes[0].route must be a path starting with '/' (no query), optionally after a"
            + " method, such as \"GET /search/*\", but was \"FETCH\"",
        "write an optional upper-case method and a path pattern whose segments are literal,"
            + " * or {name} and whose last may be **, e.g. GET /search/**");
    // A scope's host is named as a policy's is: a path there could never match either.
    assertStartReportsStartingWith(List.of("headway.scopes[0].host=api.x.com/v1",
        "headway.scopes[0].route=/search/**", "headway.scopes[0].policy=search"),
        "headway.scopes[0].host must be a host, host:port or origin but was \"api.x.com/v1\"",
        hostAction);
  }

  @Test
  void goodHostsAndRoutesStillStart() {
    runner.withPropertyValues("headway.policies[0].name=mine", "headway.policies[0].limit=2",
        "headway.policies[0].period=1m", "headway.policies[0].host=http://127.0.0.1:18074",
        "headway.policies[1].name=other", "headway.policies[1].limit=2",
        "headway.policies[1].period=1m", "headway.policies[1].host=api.example.com:8443",
        "headway.scopes[0].host=api.github.com", "headway.scopes[0].route=GET /search/**",
        "headway.scopes[0].policy=search")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Pacer.class));
    // Keyed by a path prefix, a partition is named as that resolver names it: not checked.
    runner.withPropertyValues("headway.partition-key.path-segments=1",
        "headway.policies[0].name=mine", "headway.policies[0].limit=2",
        "headway.policies[0].period=1m", "headway.policies[0].host=https://api.x.com:443/v1")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Pacer.class));
  }

  /**
   * A customizer's resolver names partitions its own way; the starter's host check runs with the
   * properties' resolver (or the origin one), before the customizers: a host that the pacer
   * actually built accepts (it keeps any name for a resolver not keyed by origin) stopped the
   * start. Worked before the check was added.
   */
  @Test
  void aHostNamedForACustomizersResolverStillStarts() {
    runner.withBean(HeadwayPacerCustomizer.class,
            () -> builder -> builder.partitionKeyResolver(
                dev.headway.PartitionKeyResolver.originAndPathPrefix(1)))
        .withPropertyValues("headway.policies[0].name=mine", "headway.policies[0].limit=2",
            "headway.policies[0].period=1m", "headway.policies[0].host=https://api.x.com:443/v1")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Pacer.class));
  }

  /** Asserts the start fails, and Spring Boot's report's description starts as given. */
  private void assertStartReportsStartingWith(List<String> properties, String description,
      String action) {
    runner.withPropertyValues(properties.toArray(String[]::new)).run(context -> {
      assertThat(context).hasFailed();
      List<String> said = analysis(context.getStartupFailure());
      assertThat(said).as(properties.toString()).hasSize(2);
      assertThat(said.get(0)).as(properties.toString()).startsWith(description);
      assertThat(said.get(1)).isEqualTo(action);
    });
  }

  @Test
  void aBadEnumValueListsTheValuesAsTheyAreWritten() {
    // Was Boot's "No enum constant ...HeadwayProperties.Strategy.fast", and BURST_THEN_SPREAD.
    assertStartReports("headway.strategy=fast",
        "headway.strategy must be one of burst-then-spread, spread, use-all-then-wait but was"
            + " \"fast\"",
        "set headway.strategy to one of burst-then-spread, spread, use-all-then-wait, or leave"
            + " it out for its default");
    assertStartReports("headway.jitter=lots",
        "headway.jitter must be one of none, full, equal, decorrelated but was \"lots\"",
        "set headway.jitter to one of none, full, equal, decorrelated, or leave it out for its"
            + " default");
    assertStartReports("headway.policies[0].type=bucket",
        "headway.policies[0].type must be one of token-bucket, fixed-window but was \"bucket\"",
        "set headway.policies[0].type to one of token-bucket, fixed-window, or leave it out for"
            + " its default");
  }

  @Test
  void anEmptyNumberOrFlagIsCalledEmpty() {
    // Was "A null value cannot be assigned to a primitive type".
    for (String property : List.of("headway.max-attempts", "headway.low-water",
        "headway.max-partitions", "headway.retry-budget.retries",
        "headway.retry-budget.refill-per-success", "headway.partition-key.path-segments",
        "headway.customize-clients", "headway.metrics.enabled")) {
      assertStartReports(property + "=", property + " is empty",
          "give " + property + " a value, or leave it out for its default");
    }
  }

  @Test
  void anEmptyRedisUriSaysSoInsteadOfABareNullPointerException() {
    runner.withPropertyValues("headway.store.redis-uri=").run(context -> {
      assertThat(context).hasFailed();
      // (Bound to nothing, the empty URI now fails the binding, before the store's own check.)
      assertThat(analysis(context.getStartupFailure())).containsExactly(
          "headway.store.redis-uri is empty",
          "give a URI such as redis://127.0.0.1:6379 (or remove the property)");
    });
  }

  /** Asserts what Spring Boot's "APPLICATION FAILED TO START" report says for one property. */
  private void assertStartReports(String property, String description, String action) {
    runner.withPropertyValues(property).run(context -> {
      assertThat(context).hasFailed();
      assertThat(analysis(context.getStartupFailure())).as(property)
          .containsExactly(description, action);
    });
  }

  @Test
  void aShortFleetSecretIsRefusedWithoutShowingIt() {
    runner.withPropertyValues("headway.partition-key.credential-header=Authorization",
        "headway.partition-key.fleet-secret=hunter2").run(context -> {
          assertThat(context).hasFailed();
          Throwable root = rootCause(context.getStartupFailure());
          assertThat(root).hasMessage("headway.partition-key.fleet-secret must have at least 16"
              + " characters but had 7");
          assertThat(stackText(context.getStartupFailure())).doesNotContain("hunter2");
        });
  }

  @Test
  void theStoresTextShowsNeitherAPasswordNorSentinelHostsItCannotName() {
    assertThat(new HeadwayProperties.Store(URI.create("redis://:hunter2@redis.internal:6379")))
        .hasToString("Store[redisUri=redis://redis.internal]");
    assertThat(new HeadwayProperties.Store(
        URI.create("redis-sentinel://:hunter2@s1:26379,s2:26379#mymaster")))
        .hasToString("Store[redisUri=redis-sentinel://...]");
    assertThat(new HeadwayProperties.Store(null)).hasToString("Store[redisUri=none]");
  }

  @Test
  void aRedisUriWithoutTheRedisStoreOnTheClassPathSaysWhatToAdd() {
    runner.withClassLoader(new FilteredClassLoader(RedisQuotaStore.class))
        .withPropertyValues("headway.store.redis-uri=redis://127.0.0.1:1")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(rootCause(context.getStartupFailure())).hasMessageContaining(
              "headway.store.redis-uri is set but there is no QuotaStore: add the dependency"
                  + " dev.headway:headway-redis-store");
          // Spring Boot's start-up report says it in two lines, not at the end of a cause chain.
          assertThat(analysis(context.getStartupFailure())).containsExactly(
              "headway.store.redis-uri is set but there is no QuotaStore",
              "add the dependency dev.headway:headway-redis-store (or remove the property)");
        });
  }

  /** What Spring Boot's "APPLICATION FAILED TO START" report says: description and action. */
  private static List<String> analysis(Throwable failure) {
    List<String> said = new ArrayList<>();
    // Those that need the bean factory are left out: none of them reads Headway's failures.
    for (FailureAnalyzer analyzer : SpringFactoriesLoader
        .forDefaultResourceLocation(HeadwayAutoConfigurationTest.class.getClassLoader())
        .load(FailureAnalyzer.class, (type, factory, e) -> { })) {
      FailureAnalysis analysis = analyzer.analyze(failure);
      if (analysis != null) {
        said.add(analysis.getDescription());
        said.add(analysis.getAction());
        break; // Spring Boot reports the first analysis
      }
    }
    return said;
  }

  @Test
  void aRedisUriMakesTheRedisStoreAndABadOneSaysWhy() {
    runner.withPropertyValues("headway.store.redis-uri=redis://127.0.0.1:1").run(context -> {
      assertThat(context).hasSingleBean(RedisQuotaStore.class).hasSingleBean(Pacer.class);
    });
    runner.withPropertyValues("headway.store.redis-uri=http://127.0.0.1:6379").run(context -> {
      assertThat(context).hasFailed();
      assertThat(rootCause(context.getStartupFailure()))
          .hasMessageContaining("uri must be a redis://, rediss:// or redis-sentinel:// URI")
          .hasMessageContaining("but was http://...");
      assertThat(analysis(context.getStartupFailure())).hasSize(2).first().asString()
          .startsWith("headway.store.redis-uri is not usable: uri must be a redis://");
    });
  }

  @Test
  void metricsOfThePacerReachTheMeterRegistry() {
    enqueue(200, "ok", "RateLimit-Policy", "\"fixed\";q=10;w=60", "RateLimit",
        "\"fixed\";r=7;t=60");
    runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
        .run(context -> {
          assertThat(context).hasSingleBean(HeadwayMetrics.class);
          context.getBean(RestClient.Builder.class).build().get()
              .uri(server.url("/items").toString()).retrieve().body(String.class);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.find("headway.quota.remaining").tag("policy", "fixed").gauge())
              .isNotNull()
              .satisfies(gauge -> assertThat(gauge.value()).isEqualTo(7.0));
        });
  }

  @Test
  void noMetricsWithoutMicrometerOrWhenTurnedOff() {
    runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
        .withPropertyValues("headway.metrics.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(HeadwayMetrics.class));
    runner.withClassLoader(new FilteredClassLoader("io.micrometer."))
        .run(context -> assertThat(context).hasSingleBean(Pacer.class)
            .doesNotHaveBean(HeadwayMetrics.class));
  }

  @Test
  void theEndpointListsThePartitionAndItsQuotaWhenExposed() {
    enqueue(200, "ok", "RateLimit-Policy", "\"fixed\";q=10;w=60", "RateLimit",
        "\"fixed\";r=7;t=60");
    ApplicationContextRunner actuator = runner.withConfiguration(AutoConfigurations.of(
        EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class));
    actuator.run(context -> assertThat(context).as("not exposed by default")
        .doesNotHaveBean(HeadwayEndpoint.class));
    actuator.withPropertyValues("management.endpoints.web.exposure.include=headway")
        .run(context -> {
          context.getBean(RestClient.Builder.class).build().get()
              .uri(server.url("/items").toString()).retrieve().body(String.class);
          HeadwayEndpoint endpoint = context.getBean(HeadwayEndpoint.class);
          String origin = "http://" + server.getHostName() + ":" + server.getPort();
          HeadwayEndpoint.Partitions all = endpoint.partitions();
          assertThat(all.partitions()).hasSize(1);
          HeadwayEndpoint.Partition partition = all.partitions().get(0);
          assertThat(partition.partition()).isEqualTo(origin);
          HeadwayEndpoint.Policy fixed = partition.policies().get(0);
          assertThat(fixed.name()).isEqualTo("fixed");
          assertThat(fixed.limit()).isEqualTo(10L);
          assertThat(fixed.remaining()).isEqualTo(7L);
          assertThat(fixed.window()).isEqualTo("PT1M");
          assertThat(partition.inFlight()).isZero();
          assertThat(partition.waiting()).isZero();
          assertThat(partition.retriesLeft()).as("no retry budget by default").isNull();
          assertThat(endpoint.partitionsOf(server.getHostName()).partitions()).hasSize(1);
          assertThat(endpoint.partitionsOf("api.example.com").partitions()).isEmpty();
        });
  }

  @Test
  void theRetryBudgetPropertiesBoundTheRetriesAndTheEndpointShowsWhatIsLeft() {
    clock.autoAdvance(true);
    for (int i = 0; i < 12; i++) {
      enqueue(503, "busy", "Retry-After", "1");
    }
    runner.withConfiguration(AutoConfigurations.of(
            EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
        .withPropertyValues("headway.jitter=none", "headway.retry-budget.enabled=true",
            "headway.retry-budget.retries=2", "management.endpoints.web.exposure.include=headway")
        .run(context -> {
          RestClient client = context.getBean(RestClient.Builder.class).build();
          for (int call = 0; call < 4; call++) {
            int status = client.get().uri(server.url("/items").toString()).retrieve()
                .onStatus(code -> true, (request, response) -> { })
                .toBodilessEntity().getStatusCode().value();
            assertThat(status).isEqualTo(503);
          }
          assertThat(server.getRequestCount())
              .as("4 calls, and the 2 retries the budget pays for (without it: 4 x 3 = 12)")
              .isEqualTo(6);
          HeadwayEndpoint.Partition partition =
              context.getBean(HeadwayEndpoint.class).partitions().partitions().get(0);
          assertThat(partition.retriesLeft()).isZero();
        });
  }

  @Test
  void theEndpointShowsACredentialKeyAsItsOriginAndAHashOnly() {
    assertThat(HeadwayEndpoint.shown("https://api.example.com:443"))
        .isEqualTo("https://api.example.com:443");
    String key = "https://api.telegram.org:443/bot123:SECRET";
    assertThat(HeadwayEndpoint.shown(key)).matches(
        "https://api\\.telegram\\.org:443 \\(key #[0-9a-f]{8}\\)").doesNotContain("SECRET");
    assertThat(HeadwayEndpoint.shown("tenant-42")).matches("key #[0-9a-f]{8}");
    // A host in characters beyond ASCII letters and digits (a registry name the pacer keeps as
    // given): was cut at the first of them ("http://b (key #...)").
    assertThat(HeadwayEndpoint.shown("http://bücher.example:80"))
        .isEqualTo("http://bücher.example:80");
    assertThat(HeadwayEndpoint.shown("http://a!b.example:8080|pk=abc"))
        .matches("http://a!b\\.example:8080 \\(key #[0-9a-f]{8}\\)");
    assertThat(HeadwayEndpoint.shown("http://user:pw@api.example.com:443"))
        .matches("key #[0-9a-f]{8}");
  }

  @Test
  void theEndpointShowsAServersPartitionKeyAsItsOriginAndAHashAndListsItUnderItsHost() {
    // express-rate-limit's draft-8 headers: the server names its partition key (pk) on the
    // policy. Was: the key shown whole ("http://127.0.0.1:PORT|pk=NWVm..."), and left out of
    // /actuator/headway/{host}.
    enqueue(200, "ok", "RateLimit-Policy", "\"20-in-10sec\"; q=20; w=10; pk=:NWVmNWVmMDM2NGI2:",
        "RateLimit", "\"20-in-10sec\"; r=19; t=10");
    runner.withConfiguration(AutoConfigurations.of(
            EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
        .withPropertyValues("management.endpoints.web.exposure.include=headway")
        .run(context -> {
          context.getBean(RestClient.Builder.class).build().get()
              .uri(server.url("/items").toString()).retrieve().body(String.class);
          HeadwayEndpoint endpoint = context.getBean(HeadwayEndpoint.class);
          String origin = "http://" + server.getHostName() + ":" + server.getPort();
          List<HeadwayEndpoint.Partition> all = endpoint.partitions().partitions();
          HeadwayEndpoint.Partition keyed = all.stream()
              .filter(partition -> !partition.policies().isEmpty()).findFirst().orElseThrow();
          assertThat(keyed.partition())
              .matches(java.util.regex.Pattern.quote(origin) + " \\(key #[0-9a-f]{8}\\)")
              .doesNotContain("NWVm");
          assertThat(keyed.policies().get(0).remaining()).isEqualTo(19L);
          assertThat(endpoint.partitionsOf(server.getHostName()).partitions())
              .as("every partition of the host, the server's keyed one too")
              .hasSameSizeAs(all);
        });
  }

  @Test
  void aMisspeltPropertyFailsTheStartNamingIt() {
    // Was: ignored without a word, the pacer kept its default (maxWait 30 s).
    assertStartReports("headway.max-wiat=5s", "headway.max-wiat is not a Headway property"
        + " (Headway refuses names it does not know, so that a misspelling cannot leave a"
        + " default in force)", "did you mean headway.max-wait? Fix the name, or remove the"
        + " property");
    assertStartFails("headway.retry-budget.enabeld", "headway.retry-budget.enabeld=true");
    runner.withPropertyValues("headway.retry-budget.enabeld=true").run(context ->
        assertThat(analysis(context.getStartupFailure()).get(1))
            .startsWith("did you mean headway.retry-budget.enabled?"));
    runner.withPropertyValues("headway.max-wiat=5s", "headway.stratgy=spread").run(context ->
        assertThat(analysis(context.getStartupFailure()).get(1))
            .isEqualTo("did you mean headway.max-wait, headway.strategy? Fix the name, or remove"
                + " the property"));
    runner.withPropertyValues("headway.policies[1].name=a", "headway.policies[1].limt=5",
        "headway.policies[1].period=1s").run(context ->
        assertThat(analysis(context.getStartupFailure()).get(1))
            .startsWith("did you mean headway.policies[1].limit?"));
    runner.withPropertyValues("headway.max-wait=5s", "headway.retry-budget.enabled=true")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void anEmptyValueOfAPropertyInCamelCaseIsReportedEmptyNotMisspelt() {
    // Was: "headway.maxwait is not a Headway property ... did you mean headway.max-wait?" for a
    // name spelt right (Spring's relaxed form) whose value was empty.
    assertStartReports("headway.maxWait=", "headway.maxwait is empty",
        "give headway.maxwait a value, or leave it out for its default");
    assertStartReports("headway.max-wait=", "headway.max-wait is empty",
        "give headway.max-wait a value, or leave it out for its default");
    runner.withPropertyValues("headway.maxWait=5s", "headway.retryBudget.enabled=true")
        .run(context -> assertThat(context).hasNotFailed());
  }

  private void assertStartFails(String message, String... properties) {
    runner.withPropertyValues(properties).run(context -> {
      assertThat(context).hasFailed();
      assertThat(rootCause(context.getStartupFailure())).hasMessageContaining(message);
    });
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static String stackText(Throwable failure) {
    java.io.StringWriter text = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(text));
    return text.toString();
  }
}
