package dev.headway.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Compiles every {@code ```java} block of the documentation, so that no snippet a user copies can
 * rot: {@code README.md}, {@code CHANGELOG.md}, {@code CONTRIBUTING.md} and every {@code .md} file
 * under {@code docs/} (found from the repository root, the parent of this module).
 *
 * <p>Conventions for documentation authors:
 *
 * <ul>
 *   <li>A block that declares a top-level type ({@code class}, {@code interface}, {@code record},
 *       {@code enum}) is a compilation unit and compiles as written: give it its imports. No
 *       {@code package} line is needed; a {@code public} type names the file.
 *   <li>Any other block is a sequence of statements. Its leading {@code import} lines are kept;
 *       the rest becomes the body of {@code void run() throws Exception} in a class that also
 *       imports, on demand, {@code dev.headway}, {@code dev.headway.okhttp},
 *       {@code dev.headway.jdk}, {@code java.io}, {@code java.net}, {@code java.net.http},
 *       {@code java.time}, {@code java.util}, {@code java.util.concurrent} and {@code okhttp3}.
 *       Declare every variable you use. (Retrofit's {@code Call} and {@code Response} clash
 *       with OkHttp's: a Retrofit snippet should be a full compilation unit.)
 *   <li>Every fenced block has a language: {@code java} blocks are compiled; use {@code text},
 *       {@code bash}, {@code xml}, {@code json}, {@code http} and so on for the others. A bare
 *       fence fails this test.
 * </ul>
 *
 * <p>Each block is one test named {@code file:line} (the line of its opening fence). Blocks are
 * compiled against this module's test class path, so they see every Headway module, OkHttp,
 * Retrofit, MockWebServer and the virtual clock. Compiler errors fail the test; warnings do not.
 */
class DocsCodeBlocksTest {
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(```+|~~~+)\\s*([^\\s`]*).*$");
  private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
      "^(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|final|abstract|sealed|non-sealed|static)\\s+)*"
          + "(?:class|interface|record|enum|@interface)\\s+(\\w+)",
      Pattern.MULTILINE);
  private static final Pattern PUBLIC_TYPE = Pattern.compile(
      "^(?:@\\w+(?:\\([^)]*\\))?\\s+)*public\\s+(?:(?:final|abstract|sealed|non-sealed)\\s+)*"
          + "(?:class|interface|record|enum|@interface)\\s+(\\w+)",
      Pattern.MULTILINE);
  private static final List<String> COMMON_IMPORTS = List.of(
      "dev.headway.*", "dev.headway.okhttp.*", "dev.headway.jdk.*", "java.io.*", "java.net.*",
      "java.net.http.*", "java.time.*", "java.util.*", "java.util.concurrent.*", "okhttp3.*");

  /** A fenced block of a Markdown file. */
  record Block(Path file, String displayName, int line, String language, String code) {}

  @TestFactory
  Stream<DynamicTest> everyJavaBlockCompiles() throws IOException {
    Path root = repositoryRoot();
    List<Block> blocks = new ArrayList<>();
    for (Path file : markdownFiles(root)) {
      blocks.addAll(blocks(root, file));
    }
    List<Block> java = blocks.stream().filter(b -> b.language().equals("java")).toList();
    assertThat(java).as("java blocks in the documentation").isNotEmpty();
    return java.stream().map(block -> DynamicTest.dynamicTest(
        block.displayName() + ":" + block.line(), block.file().toUri(), () -> compile(block)));
  }

  @TestFactory
  Stream<DynamicTest> everyFencedBlockNamesItsLanguage() throws IOException {
    Path root = repositoryRoot();
    List<DynamicTest> tests = new ArrayList<>();
    for (Path file : markdownFiles(root)) {
      List<Block> bare = blocks(root, file).stream().filter(b -> b.language().isEmpty()).toList();
      String name = root.relativize(file).toString().replace('\\', '/');
      tests.add(DynamicTest.dynamicTest(name + ": every fence names a language", file.toUri(),
          () -> assertThat(bare.stream().map(b -> b.displayName() + ":" + b.line()))
              .as("fenced blocks without a language (use ```text, ```bash, ...)")
              .isEmpty()));
    }
    return tests.stream();
  }

  /** The repository root: the nearest ancestor of the working directory with a README.md. */
  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("examples"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (README.md and examples/) above " + dir);
  }

  static List<Path> markdownFiles(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    for (String name : List.of("README.md", "CHANGELOG.md", "CONTRIBUTING.md")) {
      if (Files.isRegularFile(root.resolve(name))) {
        files.add(root.resolve(name));
      }
    }
    Path docs = root.resolve("docs");
    if (Files.isDirectory(docs)) {
      try (Stream<Path> walk = Files.walk(docs)) {
        files.addAll(walk.filter(p -> p.toString().endsWith(".md")).sorted().toList());
      }
    }
    return files;
  }

  /** Returns the fenced blocks of a Markdown file, with the line of each opening fence. */
  static List<Block> blocks(Path root, Path file) throws IOException {
    String name = root.relativize(file).toString().replace('\\', '/');
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      String fence = open.group(1);
      String rest = lines.get(i).strip().substring(fence.length());
      if (fence.charAt(0) == '`' && rest.indexOf('`') >= 0) {
        continue; // Inline code at the start of a line, not a fence (CommonMark 4.5).
      }
      String language = open.group(2).toLowerCase(Locale.ROOT);
      int start = i;
      StringBuilder code = new StringBuilder();
      for (i++; i < lines.size(); i++) {
        String trimmed = lines.get(i).strip();
        if (trimmed.startsWith(fence) && trimmed.chars().allMatch(c -> c == fence.charAt(0))) {
          break;
        }
        code.append(lines.get(i)).append('\n');
      }
      blocks.add(new Block(file, name, start + 1, language, code.toString()));
    }
    return blocks;
  }

  /** Returns the source the block compiles as, and the name of its file. */
  static String[] source(Block block) {
    String code = block.code();
    if (TOP_LEVEL_TYPE.matcher(code).find()) {
      Matcher publicType = PUBLIC_TYPE.matcher(code);
      String fileName = publicType.find() ? publicType.group(1) : "Snippet";
      return new String[] {fileName, code};
    }
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    boolean leading = true;
    for (String line : code.split("\n", -1)) {
      String trimmed = line.strip();
      if (leading && (trimmed.startsWith("import ") || trimmed.isEmpty())) {
        imports.append(line).append('\n');
      } else {
        leading = false;
        body.append("    ").append(line).append('\n');
      }
    }
    String common = COMMON_IMPORTS.stream().map(i -> "import " + i + ";\n")
        .collect(Collectors.joining());
    String unit = imports + common
        + "\n@SuppressWarnings(\"unused\")\nclass Snippet {\n  void run() throws Exception {\n"
        + body + "  }\n}\n";
    return new String[] {"Snippet", unit};
  }

  static void compile(Block block) throws IOException {
    String[] source = source(block);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertThat(compiler).as("a JDK's compiler (run the tests on a JDK, not a JRE)").isNotNull();
    Path out = Files.createTempDirectory("docs-snippet");
    try {
      DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
      JavaFileObject file = new SourceFile(source[0], source[1]);
      StringWriter output = new StringWriter();
      try (StandardJavaFileManager files =
          compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
        List<String> options = List.of("-d", out.toString(), "-classpath",
            System.getProperty("java.class.path"), "-proc:none", "--release", "17");
        boolean ok = compiler.getTask(output, files, diagnostics, options, null, List.of(file))
            .call();
        if (!ok) {
          String errors = diagnostics.getDiagnostics().stream()
              .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
              .map(DocsCodeBlocksTest::errorLine)
              .collect(Collectors.joining("\n"));
          fail(block.displayName() + ":" + block.line() + " does not compile:\n" + errors
              + "\n--- compiled as ---\n" + numbered(source[1]) + output);
        }
      }
    } finally {
      try (Stream<Path> walk = Files.walk(out)) {
        for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static String errorLine(Diagnostic<?> d) {
    return "  line " + d.getLineNumber() + " of the compiled source: "
        + d.getMessage(Locale.ROOT);
  }

  private static String numbered(String source) {
    String[] lines = source.split("\n", -1);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < lines.length; i++) {
      text.append(String.format(Locale.ROOT, "%4d  %s%n", i + 1, lines[i]));
    }
    return text.toString();
  }

  /** An in-memory source file. */
  private static final class SourceFile extends javax.tools.SimpleJavaFileObject {
    private final String code;

    SourceFile(String className, String code) {
      super(URI.create("string:///" + className + Kind.SOURCE.extension), Kind.SOURCE);
      this.code = code;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return code;
    }
  }
}
