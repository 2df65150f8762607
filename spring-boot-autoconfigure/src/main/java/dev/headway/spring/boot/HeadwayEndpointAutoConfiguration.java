package dev.headway.spring.boot;

import dev.headway.Pacer;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@link HeadwayEndpoint} ({@code /actuator/headway}) when Spring Boot's Actuator
 * is present and the endpoint is available (exposed with
 * {@code management.endpoints.web.exposure.include=headway}, as every endpoint but health).
 */
@AutoConfiguration(after = HeadwayAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnSingleCandidate(Pacer.class)
@ConditionalOnAvailableEndpoint(endpoint = HeadwayEndpoint.class)
public final class HeadwayEndpointAutoConfiguration {
  /** Creates the auto-configuration; Spring Boot does, from its imports file. */
  public HeadwayEndpointAutoConfiguration() {}

  /**
   * Returns the endpoint.
   *
   * @param pacer the application's pacer
   * @return the endpoint showing what the pacer knows
   */
  @Bean
  @ConditionalOnMissingBean
  public HeadwayEndpoint headwayEndpoint(Pacer pacer) {
    return new HeadwayEndpoint(pacer);
  }
}
