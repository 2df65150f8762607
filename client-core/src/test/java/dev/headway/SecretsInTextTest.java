package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Secrets never reach a message or a {@code toString}: credential field values are redacted, and
 * a partition key with more than an origin (a path that carries a token, a custom key) is shown
 * as its origin and a short hash. Before, {@code HttpFields.toString} printed
 * {@code Authorization} verbatim, and a key built from {@code /bot<token>/...} appeared whole in
 * {@code RateLimitedException} messages and event texts.
 */
@Timeout(30)
class SecretsInTextTest {
  static final String TOKEN = "123456789:AAE-s3cr3t-bot-t0ken";
  static final URI BOT = URI.create("https://api.telegram.org/bot" + TOKEN + "/sendMessage");

  @Test
  void credentialFieldValuesAreRedactedInToStringButNotInTheirValues() {
    HttpFields fields = HttpFields.of("Authorization", "Bearer s3cret-1",
        "Proxy-Authorization", "Basic s3cret-2", "Cookie", "sid=s3cret-3",
        "Set-Cookie", "sid=s3cret-4", "X-Api-Key", "s3cret-5", "X-Auth-Token", "s3cret-6",
        "X-Hub-Signature-256", "sha256=s3cret-7", "Client-Secret", "s3cret-8",
        "Accept", "application/json", "Retry-After", "20");

    String text = fields.toString();
    assertThat(text).doesNotContain("s3cret")
        .contains("authorization=", "proxy-authorization=", "cookie=", "set-cookie=",
            "x-api-key=", "x-auth-token=", "x-hub-signature-256=", "client-secret=")
        .contains("accept=[application/json]", "retry-after=[20]");
    assertThat(fields.firstValue("Authorization")).hasValue("Bearer s3cret-1");

    RequestInfo request = new RequestInfo("GET", URI.create("https://api.example.com/x"),
        fields, OptionalLong.empty());
    assertThat(request.toString()).doesNotContain("s3cret").contains("authorization=");
  }

  @Test
  void aPartitionKeyWithATokenInItsPathIsShownAsItsOriginAndAHash() throws Exception {
    VirtualClock clock = VirtualClock.create();
    List<PacerEvent> events = new ArrayList<>();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).listener(events::add)
        .partitionKeyResolver(PartitionKeyResolver.originAndPathPrefix(1)).build();
    String key = "https://api.telegram.org:443/bot" + TOKEN;

    pacer.acquire(RequestInfo.get(BOT)).complete(429, HttpFields.of("Retry-After", "600"), null);
    RateLimitedException refused = assertThrows(RateLimitedException.class,
        () -> pacer.acquire(RequestInfo.get(BOT)));

    assertThat(refused.partition()).as("the accessor is unchanged").isEqualTo(key);
    String shown = "https://api.telegram.org:443 (key #" + sha256(key).substring(0, 8) + ")";
    assertThat(refused.getMessage()).doesNotContain(TOKEN)
        .startsWith("Rate limited: " + shown + " would have to wait 600 s");
    assertThat(events).isNotEmpty().allSatisfy(e -> {
      assertThat(e.partition()).isEqualTo(key);
      assertThat(e.toString()).doesNotContain(TOKEN).contains("https://api.telegram.org:443");
    });
    assertThat(pacer.quota(BOT).partition()).isEqualTo(key);
    assertThat(pacer.quota(BOT).toString()).doesNotContain(TOKEN).startsWith(shown);
  }

  @Test
  void aCustomKeyIsShownAsAHashAndAPlainOriginAsItIs() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer custom = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .partitionKeyResolver(r -> "tenant-" + TOKEN).build();
    URI api = URI.create("https://api.example.com/x");
    custom.acquire(RequestInfo.get(api)).complete(429, HttpFields.of("Retry-After", "600"), null);
    RateLimitedException refused = assertThrows(RateLimitedException.class,
        () -> custom.acquire(RequestInfo.get(api)));
    assertThat(refused.getMessage()).doesNotContain(TOKEN)
        .startsWith("Rate limited: key #" + sha256("tenant-" + TOKEN).substring(0, 8) + " would");

    assertThat(new RateLimitedException("https://api.example.com:443", clock.instant(),
        Duration.ofSeconds(5), null).getMessage())
        .startsWith("Rate limited: https://api.example.com:443 would have to wait 5 s");
    assertThat(new PacerEvent.Throttled("http://billing_api.internal:8080", 429,
        Duration.ofSeconds(5)).toString()).startsWith("http://billing_api.internal:8080: ");
  }

  @Test
  void requestInfoToStringShowsTheOriginAndOnlyAHashOfPathQueryAndUserInfo() throws Exception {
    URI withKey = URI.create("https://api.example.com/v1/items?api_key=s3cret-q&page=2");
    URI userInfo = URI.create("https://alice:s3cret-u@api.example.com:8443/");
    HttpFields fields = HttpFields.of("Authorization", "Bearer s3cret-h", "Accept", "*/*");

    String bot = new RequestInfo("POST", BOT, fields, OptionalLong.of(12)).toString();
    String query = RequestInfo.get(withKey).toString();
    String user = RequestInfo.get(userInfo).toString();

    assertThat(bot).doesNotContain(TOKEN).doesNotContain("/bot").doesNotContain("s3cret")
        .isEqualTo("RequestInfo[method=POST, uri=https://api.telegram.org/… (#"
            + sha256(BOT.toString()).substring(0, 8) + "), headers={authorization=[<redacted>],"
            + " accept=[*/*]}, contentLength=OptionalLong[12]]");
    assertThat(query).doesNotContain("s3cret").doesNotContain("api_key")
        .contains("uri=https://api.example.com/… (#" + sha256(withKey.toString()).substring(0, 8));
    assertThat(user).doesNotContain("s3cret").doesNotContain("alice")
        .contains("uri=https://api.example.com:8443/… (#");
    assertThat(RequestInfo.get(URI.create("https://api.example.com/")).toString())
        .contains("uri=https://api.example.com/,");
    assertThat(RequestInfo.get(withKey).uri()).as("the accessor is unchanged").isEqualTo(withKey);
  }

  static String sha256(String text) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
