package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.headway.SignalParser;
import dev.headway.testing.VirtualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

/** Runs {@link HeadwayCli} in-process and captures what a user would see. */
final class Cli {
  static final ObjectMapper JSON = new ObjectMapper();
  /** The system clock of every run unless a test says otherwise: a fixed, odd instant. */
  static final Instant CLOCK = Instant.parse("2030-06-15T12:00:00Z");

  private Cli() {}

  /** What one run printed and returned. */
  record Result(int exitCode, String stdout, String stderr) {
    /** Parses stdout as JSON, failing the test if it is not exactly one JSON object. */
    JsonNode json() {
      try {
        JsonNode node = JSON.readTree(stdout);
        assertThat(node).as("stdout is a JSON object: %s", stdout).isNotNull();
        assertThat(node.isObject()).as("stdout is a JSON object: %s", stdout).isTrue();
        return node;
      } catch (IOException e) {
        throw new AssertionError("stdout is not JSON: " + stdout + "\nstderr: " + stderr, e);
      }
    }

    /** Returns the run's JSON after checking it succeeded with nothing on stderr. */
    JsonNode ok() {
      assertThat(exitCode).as("exit code; stderr: %s", stderr).isZero();
      assertThat(stderr).isEmpty();
      return json();
    }
  }

  /** Returns a virtual clock standing at {@link #CLOCK}. */
  static VirtualClock clock() {
    return VirtualClock.startingAt(CLOCK);
  }

  static Result run(String stdin, String... args) {
    return run(stdin.getBytes(StandardCharsets.ISO_8859_1), clock(), new HeadwayCli(), args);
  }

  static Result run(byte[] stdin, InstantSource clock, HeadwayCli cli, String... args) {
    return run(new ByteArrayInputStream(stdin), clock, cli, args);
  }

  static Result run(InputStream stdin, InstantSource clock, HeadwayCli cli, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = cli.run(args, stdin, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), clock);
    return new Result(exit, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  /** Runs {@code explain} with the given extra arguments over a fixture file. */
  static Result explainFixture(String name, String... args) {
    List<String> all = new ArrayList<>(List.of("explain"));
    all.addAll(List.of(args));
    return run(fixture(name), all.toArray(String[]::new));
  }

  /** Returns a fixture from {@code src/test/resources/responses}, as stored (LF line ends). */
  static String fixture(String name) {
    try (InputStream in = Cli.class.getResourceAsStream("/responses/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns the fixture with every LF turned into CRLF, as curl prints it. */
  static String crlf(String text) {
    return text.replace("\r\n", "\n").replace("\n", "\r\n");
  }

  /** Returns a parser that tries only {@code dialects}. */
  static HeadwayCli withDialects(dev.headway.dialect.Dialect... dialects) {
    return new HeadwayCli(SignalParser.builder().dialects(List.of(dialects)).build());
  }

  /** Returns the element of {@code array} whose {@code field} is {@code value}. */
  static JsonNode find(JsonNode array, String field, long value) {
    return StreamSupport.stream(array.spliterator(), false)
        .filter(n -> n.path(field).isIntegralNumber() && n.path(field).asLong() == value)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no element with " + field + "=" + value
            + " in " + array));
  }

  /** Returns the text elements of a JSON array. */
  static List<String> strings(JsonNode array) {
    List<String> list = new ArrayList<>();
    array.forEach(n -> list.add(n.asText()));
    return list;
  }
}
