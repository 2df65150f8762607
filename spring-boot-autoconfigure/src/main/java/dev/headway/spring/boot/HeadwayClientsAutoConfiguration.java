package dev.headway.spring.boot;

import dev.headway.Pacer;
import dev.headway.feign.RateLimitCapability;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Paces every HTTP client Spring Boot builds: a {@code RestClientCustomizer} and a
 * {@code RestTemplateCustomizer} register a {@link RateLimitClientHttpRequestInterceptor} of the
 * application's one {@link Pacer} on every {@code RestClient.Builder} and
 * {@code RestTemplateBuilder} (so on the {@code @HttpExchange} clients made from them too), and
 * with {@code headway-spring-webflux} on the class path a {@code WebClientCustomizer} adds a
 * {@link RateLimitExchangeFilterFunction} to every {@code WebClient.Builder}. With
 * {@code headway-feign} and Feign on the class path, a {@link RateLimitCapability} bean paces every
 * Feign client that takes the context's {@code Capability} beans (every {@code @FeignClient} of
 * Spring Cloud OpenFeign).
 * Spring Boot 4 moved these customizer types into new modules and packages; one nested
 * configuration per Boot line, each conditional on its line's class names, registers the right
 * ones. {@code headway.customize-clients=false} turns this off.
 */
@AutoConfiguration(after = HeadwayAutoConfiguration.class)
@ConditionalOnClass(RateLimitClientHttpRequestInterceptor.class)
@ConditionalOnSingleCandidate(Pacer.class)
@ConditionalOnBooleanProperty(name = "headway.customize-clients", matchIfMissing = true)
public final class HeadwayClientsAutoConfiguration {
  /** Creates the auto-configuration; Spring Boot does, from its imports file. */
  public HeadwayClientsAutoConfiguration() {}

  /** Spring Boot 3: RestClientCustomizer in spring-boot's org.springframework.boot.web.client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = RestClient.class,
      name = "org.springframework.boot.web.client.RestClientCustomizer")
  static class Boot3RestClient {
    @Bean
    org.springframework.boot.web.client.RestClientCustomizer headwayBoot3RestClientCustomizer(
        Pacer pacer) {
      return builder -> builder.requestInterceptor(
          RateLimitClientHttpRequestInterceptor.create(pacer));
    }
  }

  /** Spring Boot 3: RestTemplateCustomizer in spring-boot's org.springframework.boot.web.client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = RestTemplate.class,
      name = "org.springframework.boot.web.client.RestTemplateCustomizer")
  static class Boot3RestTemplate {
    @Bean
    org.springframework.boot.web.client.RestTemplateCustomizer headwayBoot3RestTemplateCustomizer(
        Pacer pacer) {
      return template -> template.getInterceptors().add(
          RateLimitClientHttpRequestInterceptor.create(pacer));
    }
  }

  /** Spring Boot 4: RestClientCustomizer in spring-boot-restclient. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = RestClient.class,
      name = "org.springframework.boot.restclient.RestClientCustomizer")
  static class Boot4RestClient {
    @Bean
    org.springframework.boot.restclient.RestClientCustomizer headwayBoot4RestClientCustomizer(
        Pacer pacer) {
      return builder -> builder.requestInterceptor(
          RateLimitClientHttpRequestInterceptor.create(pacer));
    }
  }

  /** Spring Boot 4: RestTemplateCustomizer in spring-boot-restclient. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = RestTemplate.class,
      name = "org.springframework.boot.restclient.RestTemplateCustomizer")
  static class Boot4RestTemplate {
    @Bean
    org.springframework.boot.restclient.RestTemplateCustomizer headwayBoot4RestTemplateCustomizer(
        Pacer pacer) {
      return template -> template.getInterceptors().add(
          RateLimitClientHttpRequestInterceptor.create(pacer));
    }
  }

  /** Spring Boot 3: WebClientCustomizer in spring-boot's web.reactive.function.client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = {WebClient.class, RateLimitExchangeFilterFunction.class},
      name = "org.springframework.boot.web.reactive.function.client.WebClientCustomizer")
  static class Boot3WebClient {
    @Bean
    org.springframework.boot.web.reactive.function.client.WebClientCustomizer
        headwayBoot3WebClientCustomizer(Pacer pacer) {
      return builder -> builder.filter(RateLimitExchangeFilterFunction.create(pacer));
    }
  }

  /** Spring Boot 4: WebClientCustomizer in spring-boot-webclient. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(value = {WebClient.class, RateLimitExchangeFilterFunction.class},
      name = "org.springframework.boot.webclient.WebClientCustomizer")
  static class Boot4WebClient {
    @Bean
    org.springframework.boot.webclient.WebClientCustomizer headwayBoot4WebClientCustomizer(
        Pacer pacer) {
      return builder -> builder.filter(RateLimitExchangeFilterFunction.create(pacer));
    }
  }

  /**
   * Feign: Spring Cloud OpenFeign adds every {@code feign.Capability} bean to every
   * {@code @FeignClient} it builds. A {@link RateLimitCapability} bean of the application's
   * replaces this one; one declared as a plain {@code Capability} is added too, and the first
   * one Feign applies paces the client (a capability never paces a client twice).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"feign.Capability", "dev.headway.feign.RateLimitCapability"})
  static class FeignClients {
    @Bean
    @ConditionalOnMissingBean(type = "dev.headway.feign.RateLimitCapability")
    RateLimitCapability headwayFeignCapability(Pacer pacer) {
      return RateLimitCapability.create(pacer);
    }
  }
}
