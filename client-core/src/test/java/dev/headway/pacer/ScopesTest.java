package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Which requests a server policy constrains: learned per route, declared, per attribute. */
class ScopesTest {
  static final String HOST = "https://api.example.com";
  final VirtualClock clock = VirtualClock.create();

  Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1);
  }

  static RequestInfo get(String path) {
    return RequestInfo.get(URI.create(HOST + path));
  }

  /** IETF fields naming policies: each {@code name, remaining} pair, quota 100 per 60 s. */
  static HttpFields fields(Object... nameRemaining) {
    StringBuilder policy = new StringBuilder();
    StringBuilder limit = new StringBuilder();
    for (int i = 0; i < nameRemaining.length; i += 2) {
      String sep = i == 0 ? "" : ", ";
      policy.append(sep).append('"').append(nameRemaining[i]).append("\";q=100;w=60");
      limit.append(sep).append('"').append(nameRemaining[i]).append("\";r=")
          .append(nameRemaining[i + 1]).append(";t=60");
    }
    return HttpFields.builder().add("RateLimit-Policy", policy.toString())
        .add("RateLimit", limit.toString()).build();
  }

  /** Sends {@code request} now (it must go at once) and answers it with {@code fields}. */
  static void call(Pacer pacer, RequestInfo request, HttpFields fields) {
    Permit permit = pacer.tryAcquire(request).orElseThrow(
        () -> new AssertionError("expected " + request.uri() + " to go at once"));
    permit.complete(200, fields, null);
  }

  static OptionalLong remaining(Pacer pacer, String path, String policy) {
    return pacer.quota(URI.create(HOST + path)).policy(policy).orElseThrow().remaining();
  }

  @Test
  void aResponseDoesNotSpendAPolicyThatDoesNotGovernItsRequest() {
    Pacer pacer = builder().build();
    call(pacer, get("/a/1"), fields("a", 50));
    call(pacer, get("/b/1"), fields("b", 7));
    for (int i = 2; i < 12; i++) {
      call(pacer, get("/a/" + i), fields("a", 50 - i));
    }
    assertThat(remaining(pacer, "/b/9", "b")).isEqualTo(OptionalLong.of(7));
    assertThat(remaining(pacer, "/a/9", "a")).isEqualTo(OptionalLong.of(39));
  }

  @Test
  void aSpentPolicyHoldsBackOnlyItsOwnRoutes() {
    Pacer pacer = builder().build();
    call(pacer, get("/a/1"), fields("a", 50));
    call(pacer, get("/b/1"), fields("b", 0));
    assertThat(pacer.tryAcquire(get("/b/2"))).as("b is spent").isEmpty();
    call(pacer, get("/a/2"), fields("a", 49));
    QuotaSnapshot forA = pacer.quota(URI.create(HOST + "/a/3"));
    assertThat(forA.policies()).extracting(PolicySnapshot::name).containsExactly("a");
    assertThat(forA.policies().get(0).routes()).containsExactly("GET /a/{n}");
  }

  @Test
  void aRouteNeverSeenGoesUnderTheHostWidePoliciesOnlyAndItsAnswerTeachesItsOwn() {
    Pacer pacer = builder().build();
    call(pacer, get("/a/1"), fields("a", 50, "host", 90));
    call(pacer, get("/b/1"), fields("b", 50, "host", 89));
    call(pacer, get("/a/2"), fields("a", 0, "host", 88));
    // "host" is reported by every route: it governs a new route; "a" does not.
    call(pacer, get("/c/1"), fields("c", 0, "host", 87));
    assertThat(pacer.tryAcquire(get("/c/2"))).as("c is spent").isEmpty();
    assertThat(pacer.tryAcquire(get("/a/3"))).as("a is spent").isEmpty();
    call(pacer, get("/b/2"), fields("b", 49, "host", 0));
    assertThat(pacer.tryAcquire(get("/d/1"))).as("host is spent").isEmpty();
  }

  @Test
  void beforeASecondRouteAnswersEveryPolicyGovernsEveryRequest() {
    Pacer pacer = builder().build();
    call(pacer, get("/a/1"), fields("a", 0));
    assertThat(pacer.tryAcquire(get("/z/1"))).isEmpty();
  }

  @Test
  void aDeclaredScopeTakesPrecedenceOverWhatIsLearned() {
    Pacer pacer = builder().declare("api.example.com", "GET /search/**", "search").build();
    call(pacer, get("/search/issues"), fields("search", 0));
    // Without the declaration, "search" would be the only policy known and govern /repos too.
    call(pacer, get("/repos/o/r"), HttpFields.empty());
    assertThat(pacer.tryAcquire(get("/search/code"))).isEmpty();
    assertThat(pacer.quota(URI.create(HOST + "/repos/x/y")).policies()).isEmpty();
  }

  @Test
  void aDeclaredScopeIsValidated() {
    assertThatThrownBy(() -> builder().declare("api.example.com", "search/*", "search"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("starting with '/'").hasMessageContaining("search/*");
    assertThatThrownBy(() -> builder().declare("api.example.com", "get /search", "search"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upper-case method");
    assertThatThrownBy(() -> builder().declare("api.example.com", "/a/**/b", "search"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("last segment");
    assertThatThrownBy(() -> builder().declare("api.example.com", "/search", " "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy");
    assertThatThrownBy(() -> builder().declare(" ", "/search", "search"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host");
    // A host, an origin and the resolver's key name the same partition.
    for (String partition : new String[] {"api.example.com", "https://api.example.com",
        "https://api.example.com:443", "HTTPS://API.example.com/"}) {
      Pacer pacer = builder().declare(partition, "/search/*", "search").build();
      call(pacer, get("/search/x"), fields("search", 0));
      call(pacer, get("/other"), HttpFields.empty());
      assertThat(pacer.tryAcquire(get("/other"))).as(partition).isPresent();
    }
  }

  @Test
  void aScopeAttributeKeepsOnePolicyPerValue() {
    Pacer pacer = builder().scopeAttribute(r -> r.headers().firstValue("x-model").orElse(null))
        .build();
    RequestInfo a = model("a");
    RequestInfo b = model("b");
    call(pacer, a, fields("tokens", 0));
    call(pacer, b, fields("tokens", 40));
    assertThat(pacer.tryAcquire(a)).as("a's tokens are spent").isEmpty();
    call(pacer, b, fields("tokens", 39));
    assertThat(pacer.partitions().get(0).policies()).extracting(PolicySnapshot::routes)
        .containsExactlyInAnyOrder(java.util.List.of("POST /v1/chat [a]"),
            java.util.List.of("POST /v1/chat [b]"));
  }

  @Test
  void aThrowingScopeAttributeIsAsIfThereWereNone() {
    Pacer pacer = builder().scopeAttribute(r -> {
      throw new IllegalStateException("user bug");
    }).build();
    call(pacer, model("a"), fields("tokens", 3));
    assertThat(pacer.partitions().get(0).policy("tokens").orElseThrow().remaining())
        .isEqualTo(OptionalLong.of(3));
  }

  @Test
  void routesAreCappedPerPartition() {
    Pacer pacer = builder().build();
    call(pacer, get("/search/x"), fields("search", 100));
    for (int i = 0; i < 400; i++) {
      call(pacer, get("/users/" + name(i)), fields("core", 1000 - i));
    }
    PolicySnapshot core = pacer.partitions().get(0).policy("core").orElseThrow();
    assertThat(core.routes()).hasSizeBetween(200, 256);
    assertThat(core.remaining()).isEqualTo(OptionalLong.of(601));
  }

  private static String name(int i) {
    StringBuilder b = new StringBuilder();
    for (int n = i + 26; n > 0; n /= 26) {
      b.append((char) ('a' + n % 26));
    }
    return b.toString();
  }

  private static RequestInfo model(String model) {
    return new RequestInfo("POST", URI.create(HOST + "/v1/chat"),
        HttpFields.builder().add("x-model", model).build(), OptionalLong.empty());
  }
}
