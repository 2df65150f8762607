package dev.headway.spring.boot;

import dev.headway.Pacer;
import dev.headway.micrometer.HeadwayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Publishes the pacer's meters ({@link HeadwayMetrics} of {@code headway-micrometer}: quota
 * gauges, waits, rejections, throttled responses, retries) to every {@link MeterRegistry} when
 * Micrometer and a registry are present (Spring Boot's Actuator brings both). The
 * {@code HeadwayMetrics} bean is a {@code PacerListener} and a {@code MeterBinder}: the
 * auto-configured pacer hears it and Spring Boot binds it to the registries. A pacer the
 * application defines itself has no meters unless it is given the {@code HeadwayMetrics} bean as a
 * listener: the quota gauges too are registered as the events it hears name the quotas.
 * {@code headway.metrics.enabled=false} turns this off.
 */
@AutoConfiguration(before = HeadwayAutoConfiguration.class, afterName = {
    // Spring Boot 3: the registries are made in the actuator's auto-configuration.
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple"
        + ".SimpleMetricsExportAutoConfiguration",
    // Spring Boot 4: in spring-boot-micrometer-metrics.
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure"
        + ".CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, HeadwayMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "headway.metrics.enabled", matchIfMissing = true)
public final class HeadwayMetricsAutoConfiguration {
  /** Creates the auto-configuration; Spring Boot does, from its imports file. */
  public HeadwayMetricsAutoConfiguration() {}

  /**
   * Returns the metrics the pacer reports to.
   *
   * @return new metrics with {@code HeadwayMetrics}' defaults
   */
  @Bean
  @ConditionalOnMissingBean
  public HeadwayMetrics headwayMetrics() {
    return HeadwayMetrics.create();
  }

  /**
   * Returns what points the quota gauges at the application's pacer once every singleton exists.
   *
   * @param metrics the metrics
   * @param pacers the pacer, if there is exactly one
   * @return a callback run once the context's singletons are created
   */
  @Bean
  public SmartInitializingSingleton headwayMetricsMonitor(HeadwayMetrics metrics,
      ObjectProvider<Pacer> pacers) {
    return () -> pacers.ifUnique(metrics::monitor);
  }
}
