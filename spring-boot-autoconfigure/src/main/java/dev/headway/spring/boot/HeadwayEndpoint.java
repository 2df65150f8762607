package dev.headway.spring.boot;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The Actuator endpoint {@code headway}: every partition the pacer knows and its quotas, as
 * {@link Pacer#partitions()} reports them. {@code GET /actuator/headway} lists them all;
 * {@code GET /actuator/headway/{host}} those of one host. Durations are ISO-8601
 * ({@code PT59.5S}); an unknown count or time is {@code null}.
 *
 * <p>A partition key that is more than an origin (a credential's hash, a path prefix, a server's
 * {@code pk}) is shown as its origin followed by {@code (key #} and 8 hex digits of the key's
 * SHA-256 and {@code )}, as Headway's log lines show it, so that no secret in a key reaches the
 * endpoint. Thread-safe.
 */
@Endpoint(id = "headway")
public final class HeadwayEndpoint {
  /**
   * {@code scheme://host:port} at the start of a key: up to the first character that ends an
   * origin in a key ({@code /path}, {@code ?}, {@code #cred=}, {@code |pk=}), so that what follows
   * is not taken for the host, whatever characters the host has; none when user info follows
   * ({@code @}).
   */
  private static final Pattern ORIGIN =
      Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]{0,31}://[^/?#|@\\s]++(?!@)");

  private final Pacer pacer;

  /**
   * Creates the endpoint of {@code pacer}.
   *
   * @param pacer the pacer whose partitions are shown
   */
  public HeadwayEndpoint(Pacer pacer) {
    this.pacer = Objects.requireNonNull(pacer, "pacer must not be null");
  }

  /**
   * Returns every partition the pacer knows, sorted by key.
   *
   * @return the partitions and their quotas
   */
  @ReadOperation
  public Partitions partitions() {
    return new Partitions(pacer.toString(),
        pacer.partitions().stream().map(HeadwayEndpoint::partition).toList());
  }

  /**
   * Returns the partitions of one host.
   *
   * @param host the host, e.g. {@code api.example.com}; case-insensitive
   * @return the partitions whose origin has that host, possibly none
   */
  @ReadOperation
  public Partitions partitionsOf(@Selector String host) {
    String wanted = host.toLowerCase(Locale.ROOT);
    return new Partitions(pacer.toString(), pacer.partitions().stream()
        .filter(snapshot -> host(snapshot.partition()).map(wanted::equals).orElse(false))
        .map(HeadwayEndpoint::partition)
        .toList());
  }

  private static Optional<String> host(String key) {
    Matcher origin = ORIGIN.matcher(key);
    if (!origin.find()) {
      return Optional.empty();
    }
    try {
      String host = URI.create(origin.group()).getHost();
      if (host == null) {
        return Optional.empty();
      }
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      return Optional.of(host.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  static String shown(String key) {
    Matcher origin = ORIGIN.matcher(key);
    if (origin.find() && origin.end() == key.length()) {
      return key;
    }
    String hash = "key #" + sha256(key).substring(0, 8);
    return origin.find(0) ? origin.group() + " (" + hash + ")" : hash;
  }

  private static String sha256(String key) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static Partition partition(QuotaSnapshot snapshot) {
    return new Partition(shown(snapshot.partition()), iso(snapshot.heldFor()),
        snapshot.inFlight(), snapshot.waiting(),
        snapshot.retriesLeft().isPresent() ? snapshot.retriesLeft().getAsInt() : null,
        snapshot.policies().stream().map(HeadwayEndpoint::policy).toList());
  }

  private static Policy policy(PolicySnapshot p) {
    return new Policy(p.name(),
        p.limit().isPresent() ? p.limit().getAsLong() : null,
        p.remaining().isPresent() ? p.remaining().getAsLong() : null,
        p.inFlight(), iso(p.timeToReset()), iso(p.window()), p.unit().toString(), p.source(),
        p.age().toString(), p.routes(), p.learned(), p.confidence());
  }

  private static @Nullable String iso(Optional<Duration> duration) {
    return duration.map(Duration::toString).orElse(null);
  }

  /**
   * What {@code /actuator/headway} returns.
   *
   * @param pacer the pacer's configuration at a glance
   * @param partitions the partitions, sorted by key
   */
  public record Partitions(String pacer, List<Partition> partitions) {}

  /**
   * One partition.
   *
   * @param partition the partition's key as shown (see {@link HeadwayEndpoint})
   * @param heldFor how long the partition is still held back after a throttled response, if it is
   * @param inFlight the requests sent whose response has not come back
   * @param waiting the callers waiting for a permit
   * @param retriesLeft how many more retries the partition's retry budget pays for; {@code null}
   *     when there is no retry budget
   * @param policies the state of each policy known for the partition
   */
  public record Partition(String partition, @Nullable String heldFor, int inFlight, int waiting,
      @Nullable Integer retriesLeft, List<Policy> policies) {}

  /**
   * One policy of a partition, as {@link PolicySnapshot} describes it.
   *
   * @param name the policy's name
   * @param limit the quota, if known
   * @param remaining the units remaining (the pacer's estimate), if known
   * @param inFlight units held by permits whose response has not come back
   * @param timeToReset the time until the quota resets, if known
   * @param window the policy's window, if known
   * @param unit what the quota counts
   * @param source the dialect (or {@code client} for a declared policy) that said so
   * @param age how old the information is
   * @param routes the routes this policy is known to govern; empty for every request
   * @param learned whether the pacer learned it from what the server did
   * @param confidence how much a learned policy is backed by, in [0, 1]
   */
  public record Policy(String name, @Nullable Long limit, @Nullable Long remaining, long inFlight,
      @Nullable String timeToReset, @Nullable String window, String unit, String source,
      String age, List<String> routes, boolean learned, double confidence) {}
}
