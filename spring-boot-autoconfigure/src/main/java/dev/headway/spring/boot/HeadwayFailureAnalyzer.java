package dev.headway.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link HeadwayStartupException} anywhere in a failed start into Spring Boot's report
 * (description and action), instead of a message at the bottom of a chain of causes.
 */
final class HeadwayFailureAnalyzer extends AbstractFailureAnalyzer<HeadwayStartupException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, HeadwayStartupException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
