/**
 * Headway for Spring's {@code RestClient} and {@code RestTemplate}:
 * {@link dev.headway.spring.RateLimitClientHttpRequestInterceptor}.
 */
@NullMarked
package dev.headway.spring;

import org.jspecify.annotations.NullMarked;
