package dev.headway.spring.boot;

import dev.headway.Pacer;

/**
 * Changes the {@link Pacer.Builder} of the auto-configured pacer after the {@code headway.*}
 * properties were applied: declare a bean of this type for an option the properties do not
 * cover (a cost function, a custom signal parser, a partition key resolver of your own).
 *
 * <pre>{@code
 * @Bean
 * HeadwayPacerCustomizer cost() {
 *   return builder -> builder.cost(request -> request.uri().getPath().startsWith("/search") ? 5 : 1);
 * }
 * }</pre>
 *
 * <p>Customizers run in their {@code @Order}; none runs when the application defines a
 * {@code Pacer} bean of its own.
 */
@FunctionalInterface
public interface HeadwayPacerCustomizer {
  /**
   * Changes the builder of the auto-configured pacer.
   *
   * @param builder the builder, with the properties applied
   */
  void customize(Pacer.Builder builder);
}
