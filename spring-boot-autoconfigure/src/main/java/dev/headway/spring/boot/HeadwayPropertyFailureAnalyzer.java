package dev.headway.spring.boot;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
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
 * empty (not "a null value cannot be assigned to a primitive type"); a {@code headway.*} name that
 * is not a property (a misspelling) is named with the property it is closest to, an empty one
 * is called empty. Other failures are left to Spring Boot's own analyzers. Runs before them.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class HeadwayPropertyFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {
  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
    UnboundConfigurationPropertiesException unbound =
        findCause(cause, UnboundConfigurationPropertiesException.class);
    if (unbound != null) {
      return unbound(unbound, cause);
    }
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

  /**
   * A {@code headway.*} name bound to nothing: a name that is no property (named with the closest
   * property), or an empty value whose type makes it nothing (a URI).
   */
  private static @Nullable FailureAnalysis unbound(UnboundConfigurationPropertiesException unbound,
      BindException cause) {
    List<ConfigurationProperty> properties = unbound.getUnboundProperties().stream()
        .filter(p -> p.getName().toString().startsWith("headway."))
        .sorted(Comparator.comparing(p -> p.getName().toString()))
        .toList();
    if (properties.isEmpty()) {
      return null;
    }
    ConfigurationProperty first = properties.get(0);
    String name = first.getName().toString();
    List<String> known = names("headway.", HeadwayProperties.class);
    if (isKnown(name, known) && String.valueOf(first.getValue()).isBlank()) {
      return new FailureAnalysis(name + " is empty", name.equals("headway.store.redis-uri")
          ? "give a URI such as redis://127.0.0.1:6379 (or remove the property)"
          : "give " + name + " a value, or leave it out for its default", cause);
    }
    List<String> unknown = properties.stream().map(p -> p.getName().toString())
        .filter(n -> !isKnown(n, known)).toList();
    if (unknown.isEmpty()) {
      return null;
    }
    List<String> meant = unknown.stream().map(n -> closest(n, known))
        .filter(Objects::nonNull).toList();
    String description = (unknown.size() == 1 ? unknown.get(0) + " is not a Headway property"
        : String.join(", ", unknown) + " are not Headway properties")
        + " (Headway refuses names it does not know, so that a misspelling cannot leave a default"
        + " in force)";
    String action = meant.isEmpty()
        ? "fix the name (the properties are listed in docs/spring-boot.md), or remove the property"
        : "did you mean " + String.join(", ", meant) + "? Fix the name, or remove the property";
    return new FailureAnalysis(description, action, cause);
  }

  /** Every property name of a properties record, kebab-case, nested records included. */
  static List<String> names(String prefix, Class<?> record) {
    List<String> names = new ArrayList<>();
    for (RecordComponent component : record.getRecordComponents()) {
      String name = prefix + kebab(component.getName());
      Class<?> type = component.getType();
      if (type.isRecord() && type.getEnclosingClass() == HeadwayProperties.class) {
        names.addAll(names(name + ".", type));
      } else if (type == List.class && component.getGenericType()
          instanceof ParameterizedType list
          && list.getActualTypeArguments()[0] instanceof Class<?> element
          && element.isRecord()) {
        names.addAll(names(name + "[i].", element));
      } else {
        names.add(name);
      }
    }
    return names;
  }

  /** The property {@code name} is closest to, with its index; none unless 3 edits or fewer away. */
  private static @Nullable String closest(String name, List<String> known) {
    String wrong = indexless(name);
    String closest = known.stream()
        .min(Comparator.comparingInt(k -> distance(k, wrong))).orElseThrow();
    if (distance(closest, wrong) > 3) {
      return null;
    }
    int index = name.indexOf('[');
    return closest.contains("[i]") && index >= 0
        ? closest.replace("[i]", name.substring(index, name.indexOf(']', index) + 1))
        : closest;
  }

  /** {@code headway.policies[2].limit} as {@code headway.policies[i].limit}. */
  /**
   * Whether {@code name} (as Spring Boot gives it: {@code headway.maxWait} is
   * {@code headway.maxwait}) is one of the {@code known} kebab-case names, in any of Spring's
   * relaxed forms.
   */
  private static boolean isKnown(String name, List<String> known) {
    String wanted = relaxed(indexless(name));
    return known.stream().anyMatch(k -> relaxed(k).equals(wanted));
  }

  private static String relaxed(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
  }

  private static String indexless(String name) {
    return name.replaceAll("\\[\\d+]", "[i]");
  }

  private static String kebab(String camel) {
    StringBuilder kebab = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        kebab.append('-').append(Character.toLowerCase(c));
      } else {
        kebab.append(c);
      }
    }
    return kebab.toString();
  }

  /** The Levenshtein distance: the fewest one-character edits that turn {@code a} into {@code b}. */
  private static int distance(String a, String b) {
    int[] row = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      row[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int diagonal = row[0];
      row[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int above = row[j];
        row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
            diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length()];
  }

  /** The constants as a property is written: {@code burst-then-spread, spread}. */
  static String written(Class<?> enumType) {
    return Arrays.stream(enumType.getEnumConstants())
        .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
        .collect(Collectors.joining(", "));
  }
}
