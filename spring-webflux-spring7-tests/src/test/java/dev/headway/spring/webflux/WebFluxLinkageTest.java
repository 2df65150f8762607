package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Spring and Reactor class, method and field that Headway's compiled spring-webflux classes
 * refer to (read from their constant pools with {@code javap}) exists on the Spring and Reactor
 * of this test run, with the descriptor the bytecode names: no call of the filter can end in a
 * {@link NoSuchMethodError}, {@link NoSuchFieldError} or {@link NoClassDefFoundError}. Headers
 * are read through {@code HttpHeaders.forEach(BiConsumer)} and written with {@code getFirst} and
 * {@code addAll}, which Spring 6 and 7 both declare.
 */
class WebFluxLinkageTest {
  private static final Pattern REF = Pattern.compile(
      "=\\s+(Methodref|InterfaceMethodref|Fieldref|Class)\\s+\\S+\\s+//\\s+(\\S+)");

  @Test
  void everySpringMemberTheAdapterCallsExistsOnThisSpring() throws Exception {
    TreeSet<String> refs = springReferences();
    List<String> missing = new ArrayList<>();
    for (String ref : refs) {
      if (!resolves(ref)) {
        missing.add(ref);
      }
    }

    assertThat(refs).as("Spring references read from the adapter's classes")
        .contains("org/springframework/http/HttpHeaders.forEach:(Ljava/util/function/BiConsumer;)V")
        .anyMatch(ref -> ref.startsWith("reactor/core/publisher/Mono"))
        .noneMatch(ref -> ref.startsWith("org/springframework/http/HttpHeaders.entrySet"));
    assertThat(missing).as("referenced by Headway's spring-webflux classes, absent from this"
        + " Spring or Reactor").isEmpty();
  }

  /**
   * Spring calls Headway back through the Spring types its classes implement
   * ({@code ExchangeFilterFunction}, {@code ClientHttpRequestDecorator}): none of them may have
   * an abstract method on this Spring that Headway's classes lack ({@link AbstractMethodError}).
   */
  @Test
  void everySpringTypeTheAdapterImplementsIsWhollyImplementedOnThisSpring() throws Exception {
    Path location = Path.of(RateLimitExchangeFilterFunction.class.getProtectionDomain()
        .getCodeSource().getLocation().toURI());
    List<String> unimplemented = new ArrayList<>();
    int springImplementations = 0;
    for (String name : adapterClasses(location)) {
      Class<?> type = Class.forName(name, false, loader());
      if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
        continue;
      }
      if (Stream.of(type.getInterfaces())
          .anyMatch(implemented -> implemented.getName().startsWith("org.springframework."))
          || type.getSuperclass().getName().startsWith("org.springframework.")) {
        springImplementations++;
      }
      for (Method method : type.getMethods()) {
        if (Modifier.isAbstract(method.getModifiers())) {
          unimplemented.add(name + ": " + method);
        }
      }
    }

    assertThat(springImplementations).as("Headway classes implementing a Spring type")
        .isGreaterThanOrEqualTo(2);
    assertThat(unimplemented).isEmpty();
  }

  /** Returns "owner.name:descriptor" for members and "owner" for classes: Spring's, Reactor's. */
  private static TreeSet<String> springReferences() throws IOException, URISyntaxException {
    Path location = Path.of(RateLimitExchangeFilterFunction.class.getProtectionDomain()
        .getCodeSource().getLocation().toURI());
    List<String> classes = adapterClasses(location);
    assertThat(classes).contains("dev.headway.spring.webflux.WebClientExchange",
        "dev.headway.spring.webflux.RecordedBody", "dev.headway.spring.webflux.ReadAhead");

    ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow(
        () -> new AssertionError("javap (module jdk.jdeps) is needed: run the tests on a JDK"));
    List<String> args = new ArrayList<>(List.of("-v", "-cp", location.toString()));
    args.addAll(classes);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    assertThat(exit).as("javap: %s", err).isZero();

    TreeSet<String> refs = new TreeSet<>();
    Matcher matcher = REF.matcher(out.toString());
    while (matcher.find()) {
      String ref = matcher.group(2).replace("\"", "");
      if (ref.startsWith("org/springframework/") || ref.startsWith("reactor/")
          || ref.startsWith("org/reactivestreams/")) {
        refs.add(ref);
      }
    }
    return refs;
  }

  private static List<String> adapterClasses(Path location) throws IOException {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(location)) {
      Path dir = location.resolve("dev/headway/spring/webflux");
      try (Stream<Path> files = Files.list(dir)) {
        files.map(file -> file.getFileName().toString())
            .filter(name -> name.endsWith(".class") && !name.equals("package-info.class"))
            .forEach(name -> names.add("dev.headway.spring.webflux."
                + name.substring(0, name.length() - ".class".length())));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
          String name = entries.nextElement().getName();
          if (name.startsWith("dev/headway/spring/webflux/") && name.endsWith(".class")
              && !name.endsWith("package-info.class")) {
            names.add(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
          }
        }
      }
    }
    return names;
  }

  /** Resolves a reference as the JVM would: the class, then its superclasses and interfaces. */
  private static boolean resolves(String ref) {
    int dot = ref.indexOf('.');
    String owner = (dot < 0 ? ref : ref.substring(0, dot)).replace('/', '.');
    Class<?> type;
    try {
      type = Class.forName(owner, false, loader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    if (dot < 0) {
      return true;
    }
    int colon = ref.indexOf(':', dot);
    String name = ref.substring(dot + 1, colon);
    String descriptor = ref.substring(colon + 1);
    if (name.equals("<init>")) {
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        if (descriptor.equals(descriptor(constructor.getParameterTypes(), void.class))) {
          return true;
        }
      }
      return false;
    }
    return declares(type, name, descriptor);
  }

  private static boolean declares(Class<?> type, String name, String descriptor) {
    for (Class<?> k = type; k != null; k = k.getSuperclass()) {
      for (Method method : k.getDeclaredMethods()) {
        if (method.getName().equals(name)
            && descriptor.equals(descriptor(method.getParameterTypes(), method.getReturnType()))) {
          return true;
        }
      }
      for (Field field : k.getDeclaredFields()) {
        if (field.getName().equals(name) && descriptor.equals(descriptor(field.getType()))) {
          return true;
        }
      }
      for (Class<?> implemented : k.getInterfaces()) {
        if (declares(implemented, name, descriptor)) {
          return true;
        }
      }
    }
    return false;
  }

  private static String descriptor(Class<?>[] parameters, Class<?> returned) {
    StringBuilder descriptor = new StringBuilder("(");
    for (Class<?> parameter : parameters) {
      descriptor.append(descriptor(parameter));
    }
    return descriptor.append(')').append(descriptor(returned)).toString();
  }

  private static String descriptor(Class<?> type) {
    if (type.isArray()) {
      return type.getName().replace('.', '/');
    }
    if (type.isPrimitive()) {
      return switch (type.getName()) {
        case "void" -> "V";
        case "boolean" -> "Z";
        case "byte" -> "B";
        case "char" -> "C";
        case "short" -> "S";
        case "int" -> "I";
        case "long" -> "J";
        case "float" -> "F";
        case "double" -> "D";
        default -> throw new IllegalArgumentException(type.getName());
      };
    }
    return "L" + type.getName().replace('.', '/') + ";";
  }

  private static ClassLoader loader() {
    return WebFluxLinkageTest.class.getClassLoader();
  }
}
