/**
 * Spring Boot auto-configuration for Headway, for Spring Boot 3.5 and 4.
 *
 * <p>Configuration:
 * <ul>
 *   <li>{@link dev.headway.spring.boot.HeadwayProperties}: the {@code headway.*} properties.
 *   <li>{@link dev.headway.spring.boot.HeadwayPacerCustomizer}: changes the pacer's builder
 *       beyond the properties.
 * </ul>
 *
 * <p>Auto-configurations, in the order they apply:
 * <ul>
 *   <li>{@link dev.headway.spring.boot.HeadwayMetricsAutoConfiguration}: the Micrometer
 *       metrics, a listener of the pacer.
 *   <li>{@link dev.headway.spring.boot.HeadwayAutoConfiguration}: the {@code Pacer} (and the
 *       Redis store).
 *   <li>{@link dev.headway.spring.boot.HeadwayClientsAutoConfiguration}: paced
 *       {@code RestClient}, {@code RestTemplate} and {@code WebClient} builders.
 *   <li>{@link dev.headway.spring.boot.HeadwayEndpointAutoConfiguration}: the Actuator
 *       endpoint {@link dev.headway.spring.boot.HeadwayEndpoint}.
 * </ul>
 */
@NullMarked
package dev.headway.spring.boot;

import org.jspecify.annotations.NullMarked;
