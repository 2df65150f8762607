package dev.headway.interop;

import dev.headway.testing.LocalRedisServer;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code RedisRateLimiter} (module interop-gateway, run in a JVM of its own
 * with its own class path) in front of a real {@code redis-server} of its own.
 */
final class GatewayServer implements LimiterServer {
  private final LocalRedisServer redis;
  private final ScriptServer gateway;

  private GatewayServer(LocalRedisServer redis, ScriptServer gateway) {
    this.redis = redis;
    this.gateway = gateway;
  }

  static GatewayServer start(int limit, long windowMillis, String cell)
      throws IOException, InterruptedException {
    Path target = Path.of(InteropRun.property("interop.gateway"));
    Path classpath = target.resolve("classpath.txt");
    if (!Files.isRegularFile(classpath) || !Files.isDirectory(target.resolve("classes"))) {
      throw new IllegalStateException("The Spring Cloud Gateway server is not built: " + target
          + " has no classes/ and classpath.txt. Build it with the suite: mvn -B verify -pl "
          + "interop-tests -am (the module interop-gateway comes with it).");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    LocalRedisServer redis = LocalRedisServer.start();
    try {
      ScriptServer gateway = ScriptServer.start(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
          "-cp", target.resolve("classes") + File.pathSeparator
              + Files.readString(classpath).trim(),
          "dev.headway.interop.gateway.GatewayServer", Integer.toString(limit),
          Long.toString(windowMillis), Integer.toString(redis.port())), cell);
      return new GatewayServer(redis, gateway);
    } catch (IOException | InterruptedException | RuntimeException e) {
      redis.close();
      throw e;
    }
  }

  @Override
  public URI workUri() {
    return gateway.workUri();
  }

  @Override
  public String version() {
    return gateway.version();
  }

  @Override
  public void reset() throws IOException, InterruptedException {
    gateway.reset();
  }

  @Override
  public List<Hit> log() throws IOException, InterruptedException {
    return gateway.log();
  }

  @Override
  public void close() {
    try {
      gateway.close();
    } finally {
      redis.close();
    }
  }
}
