/**
 * Headway's Spring Boot auto-configuration: {@link dev.headway.spring.boot.HeadwayProperties}
 * and the auto-configurations of {@link dev.headway.spring.boot}.
 */
// Spring Boot, Spring and Micrometer ship only Automatic-Module-Names. Everything but core is
// optional at run time: each auto-configuration is conditional on its classes.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.spring.boot {
  requires transitive dev.headway.core;
  requires dev.headway.spring;
  requires static dev.headway.feign;
  requires static dev.headway.micrometer;
  requires static dev.headway.redis;
  requires static dev.headway.spring.webflux;
  requires transitive spring.boot;
  requires spring.boot.autoconfigure;
  requires spring.beans;
  requires spring.context;
  requires spring.core;
  requires spring.web;
  requires static spring.boot.actuator;
  requires static spring.boot.actuator.autoconfigure;
  requires static spring.boot.restclient;
  requires static spring.boot.webclient;
  requires static spring.webflux;
  requires static micrometer.core;
  requires static feign.core;
  requires static org.jspecify;

  exports dev.headway.spring.boot;
  // Spring instantiates the configurations and binds the properties reflectively.
  opens dev.headway.spring.boot to spring.core, spring.beans, spring.context, spring.boot;
}
