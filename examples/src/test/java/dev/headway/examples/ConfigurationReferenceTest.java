package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.SanityCaps;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/configuration.md true to the code: every public method of {@code Pacer.Builder} has
 * a row, every row names a real method, and every documented default equals what
 * {@code Pacer.create()} has; the same for the {@link SanityCaps} table and
 * {@code SanityCaps.defaults()}.
 *
 * <p>A row is {@code | `name(Type, ...)` | default | why |}, parameter types by simple name. A
 * default is one of: a duration ({@code 30 s}, {@code 50 ms}, {@code 5 min}, {@code 1 day},
 * {@code 366 days}); an integer ({@code 10,000}); {@code true} or {@code false}; {@code none}
 * (nothing configured: null, or an empty list or map); {@code the pacer's own} (an object each
 * pacer makes for itself: present, and different in two pacers); or a static factory call in
 * backticks ({@code `Jitter.full()`}, {@code `PacingStrategy.burstThenSpread(0.2)`}), evaluated
 * and compared with the built pacer's value (equal, or of the same class and printing the same).
 */
class ConfigurationReferenceTest {
  private static final Pattern ROW =
      Pattern.compile("^\\|\\s*`([^`|]+)`\\s*\\|\\s*([^|]+?)\\s*\\|");
  private static final Pattern SIGNATURE = Pattern.compile("(\\w+)\\(([^)]*)\\)");
  private static final Pattern FACTORY = Pattern.compile("`(\\w+)\\.(\\w+)\\(([^)]*)\\)`");
  private static final Pattern DURATION =
      Pattern.compile("(\\d+(?:\\.\\d+)?) (ms|s|min|h|days?)");

  /**
   * The component of the built pacer's configuration each builder method sets, where its name
   * differs from the method's. A new builder method whose setting has another name needs a line
   * here; the test says so.
   */
  private static final Map<String, String> COMPONENT = Map.of(
      "signalParser(SignalParser)", "parser",
      "partitionKeyResolver(PartitionKeyResolver)", "resolver",
      "listener(PacerListener)", "listeners",
      "declare(ClientPolicy)", "declaredForAll",
      "declare(String, ClientPolicy)", "declaredByPartition",
      "declare(String, String, String)", "scopes",
      "jitterSeed(long)", "random");

  @Test
  void everyBuilderMethodIsDocumentedAndEveryRowIsAMethod() throws Exception {
    Map<String, String> documented = section("## `Pacer.builder()`");
    TreeSet<String> methods = new TreeSet<>();
    for (Method method : Pacer.Builder.class.getDeclaredMethods()) {
      if (Modifier.isPublic(method.getModifiers()) && !method.getName().equals("build")
          && !method.isSynthetic()) {
        methods.add(signature(method));
      }
    }
    TreeSet<String> undocumented = new TreeSet<>(methods);
    undocumented.removeAll(documented.keySet());
    TreeSet<String> unknown = new TreeSet<>(documented.keySet());
    unknown.removeAll(methods);
    assertThat(undocumented).as("public methods of Pacer.Builder without a row"
        + " | `name(Types)` | default | why | in docs/configuration.md").isEmpty();
    assertThat(unknown).as("rows of docs/configuration.md's Pacer.builder() table that name no"
        + " public method of Pacer.Builder").isEmpty();
  }

  @Test
  void everyDocumentedDefaultIsTheBuiltPacers() throws Exception {
    Map<String, String> documented = section("## `Pacer.builder()`");
    try (Pacer pacer = Pacer.create(); Pacer other = Pacer.create()) {
      Object config = config(pacer);
      Object otherConfig = config(other);
      List<String> wrong = new ArrayList<>();
      for (Map.Entry<String, String> row : documented.entrySet()) {
        String component = COMPONENT.getOrDefault(row.getKey(),
            row.getKey().substring(0, row.getKey().indexOf('(')));
        Object actual = component(config, component, row.getKey());
        Object actualInOther = component(otherConfig, component, row.getKey());
        String problem = check(row.getValue(), actual, actualInOther);
        if (problem != null) {
          wrong.add(row.getKey() + ": documented " + row.getValue() + ", " + problem);
        }
      }
      assertThat(wrong).as("defaults in docs/configuration.md that differ from Pacer.create()'s")
          .isEmpty();
    }
  }

  @Test
  void everyDocumentedSanityCapIsTheDefault() throws Exception {
    Map<String, String> documented = section("## `SignalParser.builder()` and `SanityCaps`");
    SanityCaps caps = SanityCaps.defaults();
    List<String> components = Arrays.stream(SanityCaps.class.getRecordComponents())
        .map(RecordComponent::getName).toList();
    assertThat(documented.keySet()).as("caps documented in docs/configuration.md")
        .containsExactlyInAnyOrderElementsOf(components);
    List<String> wrong = new ArrayList<>();
    for (RecordComponent component : SanityCaps.class.getRecordComponents()) {
      Object actual = component.getAccessor().invoke(caps);
      String problem = check(documented.get(component.getName()), actual, actual);
      if (problem != null) {
        wrong.add(component.getName() + ": " + problem);
      }
    }
    assertThat(wrong).as("caps in docs/configuration.md that differ from SanityCaps.defaults()")
        .isEmpty();
  }

  @Test
  void theDocumentedPermitLeaseRuleHolds() throws Exception {
    // The row says: the longer of 5 min and twice maxWait.
    try (Pacer pacer = Pacer.builder().maxWait(Duration.ofMinutes(4)).build()) {
      assertThat(pacer.permitLease()).isEqualTo(Duration.ofMinutes(8));
    }
  }

  /** Returns null when {@code documented} describes {@code actual}, else what is wrong. */
  static String check(String documented, Object actual,
      Object actualInOther) throws Exception {
    String text = documented.strip();
    if (text.equals("none")) {
      boolean empty = actual == null || actual instanceof Collection<?> c && c.isEmpty()
          || actual instanceof Map<?, ?> m && m.isEmpty();
      return empty ? null : "but the built pacer has " + actual;
    }
    if (text.equals("the pacer's own")) {
      return actual != null && actual != actualInOther ? null
          : "but two pacers share " + actual;
    }
    if (text.equals("true") || text.equals("false")) {
      return Boolean.valueOf(text).equals(actual) ? null : "but the built pacer has " + actual;
    }
    if (text.matches("[0-9][0-9,]*")) {
      long value = Long.parseLong(text.replace(",", ""));
      return actual instanceof Number n && n.longValue() == value ? null
          : "but the built pacer has " + actual;
    }
    Matcher duration = DURATION.matcher(text);
    if (duration.matches()) {
      Duration expected = duration(duration.group(1), duration.group(2));
      return expected.equals(actual) ? null : "but the built pacer has " + actual;
    }
    Matcher factory = FACTORY.matcher(text);
    if (factory.matches()) {
      Object expected = evaluate(factory.group(1), factory.group(2), factory.group(3));
      return same(expected, actual) ? null
          : "but the built pacer has " + actual + " (" + className(actual) + ")";
    }
    return "which is not a default this test can read (see ConfigurationReferenceTest)";
  }

  private static boolean same(Object expected, Object actual) {
    if (Objects.equals(expected, actual)) {
      return true;
    }
    if (expected == null || actual == null || expected.getClass() != actual.getClass()) {
      return false;
    }
    String text = expected.toString();
    boolean printsIdentity = text.endsWith("@" + Integer.toHexString(expected.hashCode()));
    return printsIdentity || text.equals(actual.toString());
  }

  private static String className(Object value) {
    return value == null ? "null" : value.getClass().getName();
  }

  private static Duration duration(String amount, String unit) {
    double value = Double.parseDouble(amount);
    double nanos = switch (unit) {
      case "ms" -> value * 1e6;
      case "s" -> value * 1e9;
      case "min" -> value * 60e9;
      case "h" -> value * 3600e9;
      default -> value * 86_400e9;
    };
    return Duration.ofNanos(Math.round(nanos));
  }

  /** Calls a static factory of a public type of {@code dev.headway} or {@code java.time}. */
  private static Object evaluate(String type, String method, String arguments) throws Exception {
    Class<?> owner;
    try {
      owner = Class.forName("dev.headway." + type);
    } catch (ClassNotFoundException e) {
      owner = Class.forName("java.time." + type);
    }
    List<String> args = arguments.isBlank() ? List.of()
        : Arrays.stream(arguments.split(",")).map(String::strip).toList();
    for (Method candidate : owner.getMethods()) {
      if (!candidate.getName().equals(method) || !Modifier.isStatic(candidate.getModifiers())
          || candidate.getParameterCount() != args.size()) {
        continue;
      }
      Object[] values = new Object[args.size()];
      Class<?>[] types = candidate.getParameterTypes();
      for (int i = 0; i < values.length; i++) {
        values[i] = types[i] == double.class ? (Object) Double.parseDouble(args.get(i))
            : types[i] == int.class ? (Object) Integer.parseInt(args.get(i))
            : types[i] == long.class ? (Object) Long.parseLong(args.get(i))
            : args.get(i);
      }
      return candidate.invoke(null, values);
    }
    throw new IllegalArgumentException("no static " + type + "." + method + " with "
        + args.size() + " arguments");
  }

  private static Object config(Pacer pacer) throws Exception {
    Field field = Pacer.class.getDeclaredField("config");
    field.setAccessible(true);
    return field.get(pacer);
  }

  private static Object component(Object config, String name, String row)
      throws Exception {
    for (RecordComponent component : config.getClass().getRecordComponents()) {
      if (component.getName().equals(name)) {
        component.getAccessor().setAccessible(true);
        return component.getAccessor().invoke(config);
      }
    }
    throw new AssertionError("the built pacer has no setting '" + name + "' for " + row
        + "; add the builder method's setting to ConfigurationReferenceTest.COMPONENT");
  }

  private static String signature(Method method) {
    return method.getName() + "(" + Arrays.stream(method.getParameterTypes())
        .map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
  }

  /** Returns the first two cells of each table row of a section: the option and its default. */
  private static Map<String, String> section(String heading) throws Exception {
    Path file = DocsCodeBlocksTest.repositoryRoot().resolve("docs/configuration.md");
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    int start = lines.indexOf(heading);
    assertThat(start).as("heading " + heading + " in " + file).isNotNegative();
    Map<String, String> rows = new LinkedHashMap<>();
    for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      Matcher row = ROW.matcher(lines.get(i));
      if (row.find()) {
        String option = row.group(1).strip();
        Matcher signature = SIGNATURE.matcher(option);
        String key = signature.matches()
            ? signature.group(1) + "(" + Arrays.stream(signature.group(2).split(","))
                .map(String::strip).filter(s -> !s.isEmpty())
                .collect(Collectors.joining(", ")) + ")"
            : option;
        assertThat(rows.put(key, row.group(2))).as("a second row for " + key).isNull();
      }
    }
    assertThat(rows).as("table rows under " + heading).isNotEmpty();
    return rows;
  }
}
