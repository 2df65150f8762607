package consumer.boot;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.service.registry.ImportHttpServices;

/**
 * A Spring Boot application with headway-spring-boot-starter and no Headway code: it starts on
 * Tomcat, calls a local API that allows 10 requests per second through RestClient, WebClient
 * (Reactor Netty) and an @HttpExchange interface (a Boot 4 HTTP service client, from
 * {@code @ImportHttpServices}), then checks that the API answered no 429, that
 * the MeterRegistry has Headway's meters and that /actuator/headway shows the partition.
 */
@SpringBootApplication
@ImportHttpServices(group = "quota", types = Items.class)
public class Main {
  static final int PER_CLIENT = 25;

  public static void main(String[] args) throws Exception {
    try (QuotaApi api = new QuotaApi(10, 1000)) {
      SpringApplication app = new SpringApplication(Main.class);
      app.setDefaultProperties(java.util.Map.of(
          "server.port", "0",
          "server.address", "127.0.0.1",
          "management.endpoints.web.exposure.include", "headway",
          "headway.max-wait", "10s",
          "spring.http.serviceclient.quota.base-url", api.origin()));
      try (ConfigurableApplicationContext context = app.run(args)) {
        run(context, api);
      }
    }
  }

  static void run(ConfigurableApplicationContext context, QuotaApi api) throws Exception {
    System.out.println("Spring Boot " + SpringBootVersion.getVersion());
    RestClient restClient = context.getBean(RestClient.Builder.class)
        .baseUrl(api.origin()).build();
    WebClient webClient = context.getBean(WebClient.Builder.class).baseUrl(api.origin()).build();
    Items items = context.getBean(Items.class);

    long start = System.nanoTime();
    for (int i = 0; i < PER_CLIENT; i++) {
      QuotaApi.check0("ok".equals(restClient.get().uri("/items").retrieve().body(String.class)));
    }
    long afterRest = System.nanoTime();
    for (int i = 0; i < PER_CLIENT; i++) {
      QuotaApi.check0("ok".equals(webClient.get().uri("/items").retrieve()
          .bodyToMono(String.class).block(Duration.ofSeconds(30))));
    }
    long afterWeb = System.nanoTime();
    for (int i = 0; i < PER_CLIENT; i++) {
      QuotaApi.check0("ok".equals(items.list()));
    }
    long end = System.nanoTime();
    System.out.printf("figures: %d requests, %d answered 429, %.2f s in all (RestClient %.2f s,"
        + " WebClient %.2f s, @HttpExchange %.2f s), quota 10 per 1 s%n",
        api.requests.get(), api.throttled.get(), (end - start) / 1e9, (afterRest - start) / 1e9,
        (afterWeb - afterRest) / 1e9, (end - afterWeb) / 1e9);

    QuotaApi.check(api.requests.get() == 3 * PER_CLIENT,
        "every call reached the API once: " + api.requests.get() + " requests");
    QuotaApi.check(api.throttled.get() == 0, "the API answered no 429");
    QuotaApi.check((end - start) / 1e9 >= 3 * PER_CLIENT / 10.0 - 2,
        "the calls were paced to the quota");

    MeterRegistry registry = context.getBean(MeterRegistry.class);
    QuotaApi.check(registry.find("headway.quota.limit").tag("policy", "window").gauge() != null
        && registry.find("headway.quota.limit").tag("policy", "window").gauge().value() == 10.0,
        "the MeterRegistry has headway.quota.limit of the API's policy");
    QuotaApi.check(registry.find("headway.pacer.wait").timer() != null
        && registry.find("headway.pacer.wait").timer().count() > 0,
        "the MeterRegistry has headway.pacer.wait with the pacer's waits");

    String port = context.getEnvironment().getProperty("local.server.port");
    HttpClient http = HttpClient.newHttpClient();
    String actuator = "http://127.0.0.1:" + port + "/actuator/headway";
    HttpResponse<String> all = http.send(HttpRequest.newBuilder(URI.create(actuator))
        .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    System.out.println("GET /actuator/headway -> " + all.statusCode() + " " + all.body());
    QuotaApi.check(all.statusCode() == 200
        && all.body().contains("\"partition\":\"" + api.origin() + "\"")
        && all.body().contains("\"name\":\"window\"") && all.body().contains("\"limit\":10"),
        "/actuator/headway shows the partition and its quota");
    HttpResponse<String> one = http.send(HttpRequest.newBuilder(
        URI.create(actuator + "/127.0.0.1")).build(), HttpResponse.BodyHandlers.ofString());
    QuotaApi.check(one.statusCode() == 200 && one.body().contains(api.origin()),
        "/actuator/headway/127.0.0.1 selects it");
  }
}
