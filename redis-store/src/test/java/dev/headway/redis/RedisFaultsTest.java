package dev.headway.redis;

import dev.headway.testing.LocalRedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import dev.headway.store.QuotaKey;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.CapturedLogs.Line;
import java.lang.System.Logger.Level;
import dev.headway.store.QuotaStoreException;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis down, restarted, or never answering: every call ends within its timeout with the
 * documented exception, and sharing resumes when Redis is back. Real processes and sockets, so
 * real time; nothing here sleeps: the tests wait on the store's own events. Where a Redis is
 * still up at a scenario's end, every key Headway left in it is checked to expire.
 */
class RedisFaultsTest {
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "default");
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** Slack for a loaded build machine on top of the store's timeout. */
  private static final Duration SLACK = Duration.ofSeconds(2);

  @BeforeEach
  void forgetLogs() {
    CapturedLogs.clear();
  }

  /**
   * The store's own line for each outage it saw: at DEBUG (the pacer using the store logs the
   * outage, once, at WARNING). Checks that the store logged nothing above DEBUG.
   */
  private static List<Line> outages() {
    assertThat(CapturedLogs.lines("dev.headway.redis"))
        .as("the store's own lines are at DEBUG")
        .allMatch(l -> l.level() == Level.DEBUG);
    return CapturedLogs.lines("dev.headway.redis").stream()
        .filter(l -> l.message().startsWith("Redis quota store unavailable")).toList();
  }

  /**
   * Waits (at most {@code seconds}) until the store logs that Redis answers again: its
   * background probe got an answer. Polls the captured log (a real Redis runs in real time).
   */
  private static void awaitResumed(int seconds) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (CapturedLogs.lines("dev.headway.redis").stream()
        .noneMatch(l -> l.message().contains("answers again"))) {
      if (System.nanoTime() > end) {
        throw new AssertionError("the store did not log 'answers again' within " + seconds
            + " s: " + CapturedLogs.lines("dev.headway.redis"));
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
  }

  /** A connection of the test's own to a Redis, to ask it what it saw. */
  private static final class Admin implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    Admin(LocalRedisServer server) {
      client = RedisClient.create(server.uri().toString());
      connection = client.connect();
    }

    /** Clients connected to Redis, this one included. */
    long clients() {
      return connection.sync().clientList().lines().filter(l -> !l.isBlank()).count();
    }

    /** {@code EVAL} commands Redis ran since it started. */
    long evalCalls() {
      Matcher m = Pattern.compile("cmdstat_eval:calls=(\\d+)")
          .matcher(connection.sync().info("commandstats"));
      return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static long evalCalls(LocalRedisServer server) {
    try (Admin admin = new Admin(server)) {
      return admin.evalCalls();
    }
  }

  /** Waits (at most the timeout plus slack) for the stage; returns its failure, if any. */
  private static Throwable failureOf(CompletionStage<?> stage) throws InterruptedException {
    long start = System.nanoTime();
    try {
      stage.toCompletableFuture().get(TIMEOUT.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the call succeeded");
    } catch (ExecutionException e) {
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(SLACK));
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the call did not end within its timeout", e);
    }
  }

  @Test
  void redisStoppedMidRunFailsFastAndSharingResumesAfterARestartOnTheSamePort()
      throws Exception {
    try (LocalRedisServer server = LocalRedisServer.start();
        RedisQuotaStore store = RedisQuotaStore.builder(server.uri()).timeout(TIMEOUT)
            .backoff(Duration.ofSeconds(1), Duration.ofSeconds(2)).build();
        RedisQuotaStore other = RedisQuotaStore.builder(server.uri()).timeout(TIMEOUT).build()) {
      store.observe(KEY, ServerCount.of(10, Instant.now())).toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
      other.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS);

      server.stop();
      Throwable first = failureOf(store.lease(KEY, 1, 1));
      assertThat(first).isInstanceOf(QuotaStoreException.class);
      Throwable fast = failureOf(store.read(KEY));
      assertThat(fast).as("failed at once, nothing sent while backing off")
          .isInstanceOf(QuotaStoreException.class).hasMessageContaining("next attempt");
      assertThat(failureOf(store.hold(KEY, Instant.now().plusSeconds(1))))
          .isInstanceOf(QuotaStoreException.class);
      assertThat(outages()).as("logged once per outage").hasSize(1);
      assertThat(outages().get(0).message()).contains("failing calls at once");

      server.restart(); // empty: no keys, no cached script
      awaitResumed(15); // the background probe got an answer
      SharedQuota state = store.observe(KEY, ServerCount.of(4, Instant.now()))
          .toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertThat(state.available()).hasValue(4);
      assertThat(store.lease(KEY, 1, 1).toCompletableFuture().get(5, TimeUnit.SECONDS)
          .granted()).isEqualTo(1);
      assertThat(evalCalls(server)).as("the lost script sent again once (EVALSHA, NOSCRIPT,"
          + " EVAL), then EVALSHA alone").isEqualTo(1);
      // The other instance, which saw no failure, reconnects by itself.
      assertThat(other.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS).available())
          .hasValue(3);
      assertThat(outages()).hasSize(1);
      KeyExpiry.assertEveryKeyExpires(server.uri(), "headway:");
    }
  }

  @Test
  void aNewStoreIsConnectedWhenBuiltSoItsFirstCallIsNotAColdConnectTimingOut() throws Exception {
    try (LocalRedisServer server = LocalRedisServer.start();
        Admin admin = new Admin(server)) {
      long before = admin.clients();
      try (RedisQuotaStore store = RedisQuotaStore.builder(server.uri()).build()) {
        // A new JVM's first connect and handshake can take longer than one call's 250 ms: a
        // store that connected in the background logged an outage and paced locally for seconds
        // at every start. The builder now waits for the first connection.
        assertThat(admin.clients()).as("connected when build() returns").isEqualTo(before + 1);
        assertThat(store.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS).count())
            .isEmpty();
        assertThat(outages()).as("no outage logged for a healthy Redis").isEmpty();
      }
      KeyExpiry.assertEveryKeyExpires(server.uri(), "headway:");
    }
  }

  @Test
  void aStoreBuiltWhileRedisRefusesConnectionsIsReturnedAtOnceAndItsCallsFail() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort(); // closed below: nothing listens there
    }
    long start = System.nanoTime();
    // A call timeout of 60 s makes the connect timeout 60 s too: build() returning well before it
    // shows that the refusal ended the wait, however slowly a loaded machine loads Lettuce.
    RedisQuotaStore store = RedisQuotaStore.builder(URI.create("redis://127.0.0.1:" + port))
        .timeout(Duration.ofSeconds(60)).build();
    try {
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("a refused connection ends build()'s wait; it does not take the 60 s connect timeout")
          .isLessThan(Duration.ofSeconds(30));
      assertThat(failureOf(store.read(KEY))).isInstanceOf(QuotaStoreException.class);
      assertThat(outages()).hasSize(1);
      assertThat(outages().get(0).message()).contains("failing calls at once");
    } finally {
      store.close();
    }
  }

  @Test
  void aRedisThatNeverAnswersTimesOutAndIsNotAskedAgainWhileBackingOff() throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            Socket s = blackHole.accept(); // read nothing, answer nothing
            synchronized (accepted) {
              accepted.add(s);
            }
          }
        } catch (IOException e) {
          // closed
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      URI uri = URI.create("redis://127.0.0.1:" + blackHole.getLocalPort());
      RedisQuotaStore store = RedisQuotaStore.builder(uri).timeout(TIMEOUT)
          .backoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build();
      try {
        // build() waited its 5 s for the first connection; the call either times out itself or
        // ends with that connection attempt, which Lettuce gives up on at the same moment.
        Throwable timedOut = failureOf(store.read(KEY));
        assertThat(timedOut).isInstanceOf(QuotaStoreException.class)
            .hasMessageMatching(".*(did not answer within 1000 ms|Unable to connect).*");
        Throwable fast = failureOf(store.lease(KEY, 1, 1));
        assertThat(fast).hasMessageContaining("next attempt");
        assertThat(outages()).hasSize(1);
      } finally {
        store.close();
      }
      assertThatThrownBy(() -> store.read(KEY).toCompletableFuture().join())
          .hasRootCauseMessage("store closed");
      synchronized (accepted) {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }

  @Test
  void aCommandRedisDoesNotAnswerInTimeFailsWithATimeoutNotACancellation() throws Exception {
    try (LocalRedisServer server = LocalRedisServer.start();
        RedisQuotaStore store = RedisQuotaStore.builder(server.uri()).timeout(TIMEOUT)
            .backoff(Duration.ofMillis(100), Duration.ofMillis(100)).build()) {
      store.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS);
      io.lettuce.core.RedisClient admin = io.lettuce.core.RedisClient.create(
          server.uri().toString());
      try (var connection = admin.connect()) {
        connection.sync().clientPause(TIMEOUT.multipliedBy(3).toMillis()); // Redis stalls
        Throwable timedOut = failureOf(store.read(KEY));
        assertThat(timedOut).isInstanceOf(QuotaStoreException.class)
            .hasMessage("Redis did not answer within 1000 ms");
        awaitResumed(15); // the probe gets an answer once Redis goes on
        assertThat(store.read(KEY).toCompletableFuture().get(5, TimeUnit.SECONDS).count())
            .isEmpty();
        KeyExpiry.assertEveryKeyExpires(server.uri(), "headway:");
      } finally {
        admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  /** Headway's lines at INFO and above, every logger. */
  private static List<Line> shown() {
    return CapturedLogs.lines("dev.headway").stream()
        .filter(l -> l.level().getSeverity() >= Level.INFO.getSeverity()).toList();
  }

  /**
   * Sends through {@code pacer} (each call waiting at most 1 s; a refusal is fine) until a line
   * of {@code level} from the pacer's store logger appears, at most {@code seconds}.
   */
  private static void sendUntilLogged(Pacer pacer, RedisFleetTest.Server server, Level level,
      int seconds) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (CapturedLogs.lines("dev.headway.store").stream().noneMatch(l -> l.level() == level)) {
      if (System.nanoTime() > end) {
        throw new AssertionError("no " + level + " from dev.headway.store within " + seconds
            + " s: " + CapturedLogs.lines("dev.headway"));
      }
      try {
        pacer.acquire(RedisFleetTest.GET, Duration.ofSeconds(1)).complete(server.handle());
      } catch (RateLimitedException e) {
        TimeUnit.MILLISECONDS.sleep(10);
      }
    }
  }

  /**
   * What an operator reads when Redis stops under a pacer and comes back: one WARNING naming
   * the cause and one INFO when sharing resumes, both from the pacer ({@code
   * dev.headway.store}). Before, the store logged its own WARNING and INFO too ({@code
   * dev.headway.redis}): two of each for one outage.
   */
  @Test
  void aPacerOnARedisThatStopsAndRestartsLogsOneWarningAndOneInfo() throws Exception {
    try (LocalRedisServer server = LocalRedisServer.start();
        RedisQuotaStore store = RedisQuotaStore.builder(server.uri()).timeout(TIMEOUT)
            .backoff(Duration.ofMillis(100), Duration.ofMillis(200)).build()) {
      Pacer pacer = Pacer.builder().store(store).build();
      RedisFleetTest.Server api = new RedisFleetTest.Server();
      api.refill(100_000);
      for (int i = 0; i < 5; i++) {
        pacer.acquire(RedisFleetTest.GET, Duration.ofSeconds(1)).complete(api.handle());
      }
      assertThat(shown()).as("nothing logged while Redis answers").isEmpty();

      server.stop();
      sendUntilLogged(pacer, api, Level.WARNING, 15);
      server.restart();
      sendUntilLogged(pacer, api, Level.INFO, 30);

      List<Line> shown = shown();
      assertThat(shown).as("%s", shown).hasSize(2);
      assertThat(shown.get(0).logger()).isEqualTo("dev.headway.store");
      assertThat(shown.get(0).level()).isEqualTo(Level.WARNING);
      assertThat(shown.get(0).message())
          .startsWith("Quota store did not answer (QuotaStoreException: ")
          .endsWith("); pacing locally until it does");
      assertThat(shown.get(1).logger()).isEqualTo("dev.headway.store");
      assertThat(shown.get(1).message()).isEqualTo("Quota store answers again; sharing resumes");
      assertThat(outages()).as("the store's detail, at DEBUG").isNotEmpty();
      pacer.close();
    }
  }
}
