/**
 * Headway's Spring Boot starter: brings the auto-configuration
 * ({@code dev.headway.spring.boot}), the core, the {@code RestClient} and {@code RestTemplate}
 * interceptor, the {@code WebClient} filter and the
 * Micrometer metrics. It holds no code of its own.
 */
// Spring Boot and Micrometer ship only Automatic-Module-Names.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.spring.boot.starter {
  requires transitive dev.headway.spring.boot;
  requires transitive dev.headway.spring;
  requires transitive dev.headway.spring.webflux;
  requires transitive dev.headway.micrometer;
}
