package dev.headway.spring.boot;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.convert.ConversionFailedException;

/**
 * Says what is wrong with a {@code headway.*} value Spring Boot could not convert, and how to fix
 * it, in the form a user writes it: an enum-valued property lists its values as they are written
 * ({@code burst-then-spread}, not {@code BURST_THEN_SPREAD}); an empty number or flag is called
 * empty (not "a null value cannot be assigned to a primitive type"). Other failures are left to
 * Spring Boot's own analyzers. Runs before them.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class HeadwayPropertyFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {
  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
    String property = cause.getName().toString();
    ConfigurationProperty bound = cause.getProperty();
    ConversionFailedException conversion = findCause(cause, ConversionFailedException.class);
    if (!property.startsWith("headway.") || bound == null || conversion == null) {
      return null;
    }
    String value = String.valueOf(bound.getValue());
    Class<?> type = conversion.getTargetType().getType();
    if (type.isEnum()) {
      String allowed = written(type);
      return new FailureAnalysis(
          property + " must be one of " + allowed + " but was \"" + value + "\"",
          "set " + property + " to one of " + allowed + ", or leave it out for its default",
          cause);
    }
    if (type.isPrimitive() && value.isBlank()) {
      return new FailureAnalysis(property + " is empty",
          "give " + property + " a value, or leave it out for its default", cause);
    }
    return null;
  }

  /** The constants as a property is written: {@code burst-then-spread, spread}. */
  static String written(Class<?> enumType) {
    return Arrays.stream(enumType.getEnumConstants())
        .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
        .collect(Collectors.joining(", "));
  }
}
