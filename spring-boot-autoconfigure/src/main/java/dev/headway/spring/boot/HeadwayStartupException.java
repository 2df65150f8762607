package dev.headway.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * Headway's properties ask for something the application cannot have; Spring Boot prints the
 * description and the action in its "APPLICATION FAILED TO START" report
 * ({@link HeadwayFailureAnalyzer}).
 */
final class HeadwayStartupException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  HeadwayStartupException(String description, String action, @Nullable Throwable cause) {
    super(description + ": " + action, cause);
    this.description = description;
    this.action = action;
  }

  String description() {
    return description;
  }

  String action() {
    return action;
  }
}
