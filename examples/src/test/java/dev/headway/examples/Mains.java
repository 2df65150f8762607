package dev.headway.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs an example's {@code main} with no arguments and returns what it printed. */
final class Mains {
  private Mains() {}

  interface Main {
    void main(String[] args) throws Exception;
  }

  static synchronized String run(Main main) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      main.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    String output = bytes.toString(StandardCharsets.UTF_8);
    original.print(output);
    return output;
  }
}
