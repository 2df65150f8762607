package dev.headway.interop.gateway;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway with its {@code RedisRateLimiter} in front of {@code GET /work}, for the
 * interop suite. Arguments: the limit, the window in milliseconds, the Redis port. The bucket
 * holds {@code limit} tokens and is refilled at limit / window per second (a whole number: the
 * gateway's rate is tokens per second). It speaks the suite's protocol: once listening it prints
 * one line of JSON, {@code {"port", "control", "version"}}; the control port serves
 * {@code POST /reset} and {@code GET /log} (every request that reached the gateway since the
 * reset, as {@code [ms since reset, status]}); it ends when its standard input closes.
 */
@SpringBootApplication
public class GatewayServer {
  private static final Object LOCK = new Object();
  private static long t0 = System.nanoTime();
  private static List<long[]> log = new ArrayList<>();

  private static int limit;
  private static long windowMillis;

  /** Starts the gateway, then waits for standard input to close. */
  public static void main(String[] args) throws IOException {
    limit = Integer.parseInt(args[0]);
    windowMillis = Long.parseLong(args[1]);
    int redisPort = Integer.parseInt(args[2]);
    SpringApplication app = new SpringApplication(GatewayServer.class);
    ConfigurableApplicationContext context = app.run(
        "--server.port=0", "--server.address=127.0.0.1",
        "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
        "--spring.main.banner-mode=off", "--logging.level.root=WARN");
    int port = ((WebServerApplicationContext) context).getWebServer().getPort();
    HttpServer control = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    control.createContext("/reset", exchange -> {
      synchronized (LOCK) {
        t0 = System.nanoTime();
        log = new ArrayList<>();
      }
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    control.createContext("/log", exchange -> {
      StringBuilder body = new StringBuilder("{\"log\":[");
      synchronized (LOCK) {
        for (int i = 0; i < log.size(); i++) {
          body.append(i == 0 ? "" : ",").append('[').append(log.get(i)[0]).append(',')
              .append(log.get(i)[1]).append(']');
        }
      }
      byte[] bytes = body.append("]}").toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    control.start();
    String version = "spring-cloud-gateway "
        + RedisRateLimiter.class.getPackage().getImplementationVersion()
        + ", spring-boot " + SpringBootVersion.getVersion();
    System.out.println("{\"port\":" + port + ",\"control\":" + control.getAddress().getPort()
        + ",\"version\":\"" + version + "\"}");
    System.out.flush();
    try (InputStream in = System.in) {
      while (in.read() >= 0) {
        // Wait for the suite to close it.
      }
    }
    control.stop(0);
    context.close();
    System.exit(0);
  }

  /** Logs every request that reached the gateway, with the status it was answered with. */
  @Bean
  @Order(Ordered.HIGHEST_PRECEDENCE)
  WebFilter hits() {
    return (exchange, chain) -> chain.filter(exchange).doFinally(signal -> {
      HttpStatusCode status = exchange.getResponse().getStatusCode();
      synchronized (LOCK) {
        log.add(new long[] {(System.nanoTime() - t0) / 1_000_000,
            status == null ? 200 : status.value()});
      }
    });
  }

  /** The gateway's rate limiter: a bucket of limit tokens, refilled per second. */
  @Bean
  RedisRateLimiter redisRateLimiter() {
    int perSecond = (int) Math.max(1, limit * 1000L / windowMillis);
    return new RedisRateLimiter(perSecond, limit, 1);
  }

  /** {@code /work} through the limiter (one bucket for all), forwarded to {@code /backend}. */
  @Bean
  RouteLocator routes(RouteLocatorBuilder builder, RedisRateLimiter limiter) {
    return builder.routes()
        .route("work", r -> r.path("/work")
            .filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(limiter)
                .setKeyResolver(exchange -> Mono.just("all"))).setPath("/backend"))
            .uri("forward:/backend"))
        .build();
  }

  /** What the limited resource answers. */
  @Bean
  RouterFunction<ServerResponse> backend() {
    return RouterFunctions.route().GET("/backend", request -> ServerResponse.ok().bodyValue("ok"))
        .build();
  }
}
