package dev.headway.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A limiter started by a script of the suite (servers.js under Node, flask_server.py under
 * python3): it prints {@code {"port", "control", "version"}} once listening, counts every request
 * at its HTTP server and serves that log on its control port, and ends when its standard input
 * closes.
 */
final class ScriptServer implements LimiterServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CONTROL = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  private static final Duration START_LIMIT = Duration.ofSeconds(60);

  private final Process process;
  private final URI work;
  private final URI control;
  private final String version;

  private ScriptServer(Process process, URI work, URI control, String version) {
    this.process = process;
    this.work = work;
    this.control = control;
    this.version = version;
  }

  static ScriptServer start(List<String> command, String cell)
      throws IOException, InterruptedException {
    Path log = Files.createDirectories(Runtimes.WORK.resolve("logs")).resolve(cell + ".log");
    Process process = new ProcessBuilder(command)
        .redirectError(log.toFile())
        .start();
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        return new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)).readLine();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    String line;
    try {
      line = first.get(START_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      line = null;
    }
    if (line == null) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not start within "
          + START_LIMIT + ":\n" + Files.readString(log));
    }
    JsonNode ready = JSON.readTree(line);
    return new ScriptServer(process,
        URI.create("http://127.0.0.1:" + ready.get("port").asInt() + "/work"),
        URI.create("http://127.0.0.1:" + ready.get("control").asInt() + "/"),
        ready.get("version").asText());
  }

  @Override
  public URI workUri() {
    return work;
  }

  @Override
  public String version() {
    return version;
  }

  @Override
  public void reset() throws IOException, InterruptedException {
    CONTROL.send(HttpRequest.newBuilder(control.resolve("/reset"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
  }

  @Override
  public List<Hit> log() throws IOException, InterruptedException {
    HttpResponse<byte[]> response = CONTROL.send(
        HttpRequest.newBuilder(control.resolve("/log")).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    List<Hit> hits = new ArrayList<>();
    for (JsonNode hit : JSON.readTree(response.body()).get("log")) {
      hits.add(new Hit(hit.get(0).asLong(), hit.get(1).asInt()));
    }
    hits.sort(java.util.Comparator.comparingLong(Hit::atMillis));
    return hits;
  }

  @Override
  public void close() {
    try (OutputStream stdin = process.getOutputStream()) {
      // Closing it is the signal to end.
    } catch (IOException e) {
      // Ended already.
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
