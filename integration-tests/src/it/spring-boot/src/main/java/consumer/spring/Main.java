package consumer.spring;

import dev.headway.Pacer;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;

/** A Spring Boot 3 application: every RestClient built from Boot's builder is paced. */
@SpringBootApplication
public class Main {
  static LocalApi api;

  public static void main(String[] args) throws Exception {
    try (LocalApi local = new LocalApi(true)) {
      api = local;
      new SpringApplicationBuilder(Main.class).web(WebApplicationType.NONE).run(args).close();
    }
  }

  @Bean
  Pacer pacer() {
    return Pacer.create();
  }

  @Bean
  RestClientCustomizer headway(Pacer pacer) {
    return builder -> builder.requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer));
  }

  @Bean
  CommandLineRunner call(RestClient.Builder builder, Pacer pacer) {
    return args -> {
      RestClient client = builder.build();
      String body = client.get().uri(api.uri("/items")).retrieve().body(String.class);
      System.out.println(pacer.quota(api.uri("/")));
      LocalApi.check("ok".equals(body), "the 429 was retried and the retry succeeded");
      LocalApi.check(api.requests.get() == 2, "two requests reached the server");
      LocalApi.check(pacer.quota(api.uri("/")).policy("fixed").isPresent(),
          "the pacer read the quota");
    };
  }
}
